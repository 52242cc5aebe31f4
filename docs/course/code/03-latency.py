# SPDX-License-Identifier: Apache-2.0
# add, float, n = 2^10: what a caller waits (us) against what the GPU works (gpu_us).
import gzip
import json


def rows(suite):
    with gzip.open(f"docs/benchmarks/{suite}.json.gz", "rt") as f:
        data = json.load(f)
    return {row[0]: dict(zip(data["columns"], row[1:])) for row in data["rows"]}


elementwise, peers = rows("elementwise"), rows("peers")
for impl in ("raw_naive", "raw", "thrust", "cub", "torch", "cupy"):
    row = (peers if impl in ("torch", "cupy") else elementwise)[f"add/float/{impl}/1024/cold"]
    print(f"{impl:10} us {row['median us']:6.2f}   gpu_us {row['median gpu_us']:5.2f}")

# The same call beside what it is made of (warm, one run): a bare launch, a direct CUB call.
cost = rows("call_cost")
for impl in ("bare_launch", "raw", "cub_direct", "cub"):
    print(f"call_cost {impl:12} us {cost[f'add/float/{impl}/1024/warm']['median us']:5.2f}")
