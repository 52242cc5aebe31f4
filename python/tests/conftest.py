# SPDX-License-Identifier: Apache-2.0
"""The kinds of array the suite runs on: NumPy everywhere; PyTorch and CuPy CUDA arrays where the
library and a GPU are present (skipped, with the reason, where not). Each kind is an adapter: make
an array of it from a NumPy array, read one back, and the implementations to run on it."""
import numpy as np
import pytest

import prism_primitives as prism


class NumpyArrays:
    name = "numpy"
    gpu = False
    implementations = ("automatic", "cpu")

    def put(self, host):
        return np.ascontiguousarray(host.copy())

    def get(self, array):
        return np.asarray(array)

    def empty(self, n, dtype):
        return np.empty(n, dtype=dtype)

    def synchronize(self):
        pass


class TorchArrays:
    name = "torch"
    gpu = True
    implementations = ("automatic", "thrust", "raw", "cub")

    def __init__(self, torch):
        self.torch = torch

    def dtype(self, dtype):
        return getattr(self.torch, np.dtype(dtype).name)

    def put(self, host):
        return self.torch.from_numpy(np.ascontiguousarray(host)).to("cuda")

    def get(self, array):
        return array.cpu().numpy()

    def empty(self, n, dtype):
        return self.torch.empty(n, dtype=self.dtype(dtype), device="cuda")

    def synchronize(self):
        self.torch.cuda.synchronize()


class CupyArrays:
    name = "cupy"
    gpu = True
    implementations = ("automatic", "thrust", "raw", "cub")

    def __init__(self, cupy):
        self.cupy = cupy

    def put(self, host):
        return self.cupy.asarray(np.ascontiguousarray(host))

    def get(self, array):
        return self.cupy.asnumpy(array)

    def empty(self, n, dtype):
        return self.cupy.empty(n, dtype=dtype)

    def synchronize(self):
        self.cupy.cuda.Device().synchronize()


def torch_or_skip():
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("torch sees no CUDA device")
    if not prism.gpu_available():
        pytest.skip("prism sees no CUDA device")
    return torch


def cupy_or_skip():
    cupy = pytest.importorskip("cupy")
    try:
        if cupy.cuda.runtime.getDeviceCount() == 0:
            pytest.skip("cupy sees no CUDA device")
    except cupy.cuda.runtime.CUDARuntimeError as error:
        pytest.skip(f"cupy sees no CUDA device: {error}")
    if not prism.gpu_available():
        pytest.skip("prism sees no CUDA device")
    return cupy


@pytest.fixture(params=["numpy", "torch", "cupy"])
def xp(request):
    """Every kind of array, GPU kinds skipped where they cannot run."""
    if request.param == "numpy":
        return NumpyArrays()
    if request.param == "torch":
        return TorchArrays(torch_or_skip())
    return CupyArrays(cupy_or_skip())


@pytest.fixture(params=["torch", "cupy"])
def gpu_xp(request):
    """The GPU kinds only."""
    if request.param == "torch":
        return TorchArrays(torch_or_skip())
    return CupyArrays(cupy_or_skip())


@pytest.fixture
def rng(request):
    """A fresh seed per test, printed when the test fails."""
    seed = np.random.SeedSequence().entropy % (1 << 32)
    request.node.user_properties.append(("seed", seed))
    print(f"seed {seed}")
    return np.random.default_rng(seed)


@pytest.fixture
def torch():
    """PyTorch with a CUDA device, or the test is skipped."""
    return torch_or_skip()


@pytest.fixture
def cupy():
    """CuPy with a CUDA device, or the test is skipped."""
    return cupy_or_skip()


def pytest_terminal_summary(terminalreporter):
    """How many hostile cases each kind of array ran (test_hostile.py), or why it did not."""
    import sys
    for module in list(sys.modules.values()):  # under whatever name the import mode gave it
        if str(getattr(module, "__file__", "")).endswith("test_hostile.py") and hasattr(module, "summary_lines"):
            for line in module.summary_lines():
                terminalreporter.write_line(line)
            break
