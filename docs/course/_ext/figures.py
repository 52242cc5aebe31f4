# SPDX-License-Identifier: Apache-2.0
"""The course's pictures, drawn with matplotlib from the committed rows (docs/benchmarks).

draw(directory) writes every picture into `directory` as NAME.png; each function below draws one
and names the rows it reads. The same pictures serve both languages: their words are English,
their numbers the data's.
"""
import os

import benchdata

N28 = 268435456
SIZES = [2 ** k for k in range(10, 29, 2)]


def _plt():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    plt.rcParams.update({"font.size": 9, "axes.spines.top": False, "axes.spines.right": False,
                         "svg.hashsalt": "prism", "savefig.dpi": 110})
    return plt


def _row(name, field="GB/s"):
    """A row's field (its cold row where the size has two); a row that is not there is an error."""
    try:
        fields = benchdata.find_row(name)
    except KeyError:
        name += "/cold"
        fields = benchdata.find_row(name)
    v = benchdata.field_value(fields, field, name)
    if v is None:
        raise KeyError(f"{name} has no {field}")
    return v


def _cold(algorithm, kind, impl, n):
    """The cold row at n where the size has one (fits in L2), else the plain row."""
    for suffix in ("/cold", ""):
        name = f"{algorithm}/{kind}/{impl}/{n}{suffix}"
        try:
            benchdata.find_row(name)
            return name
        except KeyError:
            continue
    return None


def _warm(algorithm, kind, impl, n):
    name = f"{algorithm}/{kind}/{impl}/{n}/warm"
    try:
        benchdata.find_row(name)
        return name
    except KeyError:
        return None


def _curve(algorithm, kind, impl, field="GB/s", cache="cold"):
    xs, ys = [], []
    for n in SIZES:
        name = _cold(algorithm, kind, impl, n) if cache == "cold" else _warm(algorithm, kind, impl, n)
        fields = benchdata.find_row(name) if name else None
        v = benchdata.field_value(fields, field, name) if fields else None
        if v is not None:
            xs.append(n)
            ys.append(v)
    return xs, ys


def _size_axis(ax):
    ax.set_xscale("log", base=2)
    ax.set_xticks(SIZES)
    ax.set_xticklabels([f"$2^{{{k}}}$" for k in range(10, 29, 2)])
    ax.set_xlabel("n (elements)")


def add_bandwidth(plt, path):
    """add, float: GB/s against n for every implementation and the peers; the 2:1 ceiling."""
    fig, ax = plt.subplots(figsize=(6.4, 3.6))
    for impl, style in (("raw_naive", ":"), ("raw", "-"), ("thrust", "--"), ("cub", "-"), ("torch", "-."),
                        ("cupy", "-.")):
        xs, ys = _curve("add", "float", impl)
        ax.plot(xs, ys, style, marker="o", markersize=3, label=impl)
    ceiling = benchdata.value("ceiling:elementwise:mixed2")
    ax.axhline(ceiling, color="k", linestyle="--", linewidth=0.8)
    ax.text(2 ** 10, ceiling * 1.02, f"two reads per write: {ceiling:,.0f} GB/s", fontsize=8)
    _size_axis(ax)
    ax.set_ylabel("GB/s (12 bytes per element)")
    ax.set_ylim(0, ceiling * 1.12)
    ax.set_title("add, float: H200, cold L2")
    ax.legend(loc="center right", fontsize=8)
    fig.tight_layout()
    fig.savefig(path)


def roofline(plt, path):
    """The memory roof (the 2:1 ceiling) and where add, axpby, dot and sum sit under it at 2^28."""
    ceiling = benchdata.value("ceiling:elementwise:mixed2")
    fig, ax = plt.subplots(figsize=(6.4, 3.6))
    xs = [2 ** (k / 4) for k in range(-20, 17)]
    ax.plot(xs, [ceiling * x for x in xs], "k-", linewidth=1)
    read = benchdata.value("ceiling:reduce:read")
    ax.plot(xs, [read * x for x in xs], "k:", linewidth=1)
    ax.text(2 ** 1.2, read * 2 ** 1.2 * 0.62, f"reads alone: {read:,.0f} GB/s", fontsize=8)
    ax.text(2 ** -4.8, ceiling * 2 ** -1.5, f"memory roof, two reads per write: {ceiling:,.0f} GB/s", fontsize=8)
    points = [("add, raw_naive", ("add", "float", "raw_naive"), 1 / 12, (8, -12)),
              ("add, cub", ("add", "float", "cub"), 1 / 12, (-20, 10)),
              ("sum, raw", ("sum", "float", "raw"), 1 / 4, (8, -12))]
    for label, row, intensity, offset in points:
        gbps = _row(_cold(*row, N28))
        ax.plot([intensity], [gbps * intensity], "o")
        ax.annotate(f"{label}: {gbps * intensity:,.0f} Gflop/s", (intensity, gbps * intensity),
                    textcoords="offset points", xytext=offset, fontsize=8)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log", base=10)
    ax.set_xlabel("arithmetic intensity (flop per byte moved)")
    ax.set_ylabel("Gflop/s")
    ax.set_title("float32 at n = 2^28 on the H200: under the memory roof")
    ax.text(2 ** 0.5, ceiling * 0.05, "the flat compute roof is\nfar above this picture", fontsize=8)
    fig.tight_layout()
    fig.savefig(path)


def latency(plt, path):
    """add, float, n = 2^10: the latency a caller sees beside the GPU time alone."""
    names = [("raw_naive", "add/float/raw_naive/1024/cold"), ("raw", "add/float/raw/1024/cold"),
             ("thrust", "add/float/thrust/1024/cold"), ("cub", "add/float/cub/1024/cold"),
             ("torch", "add/float/torch/1024/cold"), ("cupy", "add/float/cupy/1024/cold")]
    fig, ax = plt.subplots(figsize=(6.4, 3.0))
    ys = range(len(names))
    ax.barh([y + 0.2 for y in ys], [_row(n, "us") for _, n in names], height=0.4, label="us: events around the call")
    ax.barh([y - 0.2 for y in ys], [_row(n, "gpu_us") for _, n in names], height=0.4,
            label="gpu_us: the GPU time alone")
    ax.set_yticks(list(ys))
    ax.set_yticklabels([label for label, _ in names])
    ax.invert_yaxis()
    ax.set_xlabel("microseconds (median)")
    ax.set_title("add, float, n = 2^10, cold L2")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path)


def cold_warm(plt, path):
    """add, float, raw: cold and warm rows against n, the read+write ceiling of DRAM."""
    fig, ax = plt.subplots(figsize=(6.4, 3.4))
    for cache, style in (("cold", "-"), ("warm", "--")):
        xs, ys = _curve("add", "float", "raw", cache=cache)
        ax.plot(xs, ys, style, marker="o", markersize=3, label=f"raw, {cache} L2")
    ceiling = benchdata.value("ceiling:elementwise:mixed2")
    ax.axhline(ceiling, color="k", linestyle=":", linewidth=0.8)
    l2 = float(benchdata.load()[1]["elementwise"]["l2_bytes"])
    ax.axvline(l2 / 12, color="grey", linewidth=0.8)
    ax.text(l2 / 12 * 1.1, ceiling * 0.15, "3 arrays fill L2", fontsize=8)
    _size_axis(ax)
    ax.set_ylabel("GB/s")
    ax.set_title("add, float: what the cache hides")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path)


def _stage_bars(plt, path, rows, ylabel, title, value_of):
    fig, ax = plt.subplots(figsize=(6.4, 3.4))
    labels = [label for label, _ in rows]
    values = [value_of(name) for _, name in rows]
    bars = ax.bar(range(len(rows)), values, color=["#4c72b0" if label[0].isdigit() else "#dd8452" for label in labels])
    for bar, v in zip(bars, values):
        ax.text(bar.get_x() + bar.get_width() / 2, v, f"{v:,.3g}" if v < 100 else f"{v:,.0f}", ha="center",
                va="bottom", fontsize=7)
    ax.set_xticks(range(len(rows)))
    ax.set_xticklabels(labels, rotation=30, ha="right", fontsize=8)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    fig.tight_layout()
    fig.savefig(path)


def reduce_lesson(plt, path):
    stages = ["interleaved_divergent", "interleaved", "sequential", "first_add", "warp_shuffle", "multiple"]
    fig, ax = plt.subplots(figsize=(6.4, 3.4))
    width = 0.4
    for offset, kind in ((-width / 2, "float"), (width / 2, "double")):
        names = [f"sum/{kind}/lesson_{s}/268435456" for s in stages] + \
                [f"sum/{kind}/raw/268435456", f"sum/{kind}/cub/268435456"]
        ax.bar([i + offset for i in range(len(names))], [_row(n, "pct") for n in names], width=width, label=kind)
    ax.set_xticks(range(len(stages) + 2))
    ax.set_xticklabels([f"{i + 1} {s}" for i, s in enumerate(stages)] + ["raw", "cub"], rotation=30, ha="right",
                       fontsize=8)
    ax.set_ylabel("% of the read ceiling")
    ax.set_ylim(0, 100)
    ax.set_title("sum at n = 2^28: the six stages, then raw and cub")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path)


def scan_lesson(plt, path):
    stages = ["hillis_steele_global", "hillis_steele_shared", "blelloch", "warp_shuffle", "reduce_then_scan",
              "decoupled_look_back"]
    rows = [(f"{i + 1} {s}", f"inclusive_scan/float/lesson_{s}/268435456") for i, s in enumerate(stages)]
    rows += [(impl, f"inclusive_scan/float/{impl}/268435456") for impl in ("thrust", "cub", "raw")]
    _stage_bars(plt, path, rows, "GB/s (8 bytes per element)", "inclusive scan, float, n = 2^28",
                lambda name: _row(name))


def sort_lesson(plt, path):
    stages = ["one_bit_split", "four_bit_counts", "eight_bit_ranked", "onesweep"]
    rows = [(f"{i + 1} {s}", f"sort/uint32/lesson_{s}/268435456") for i, s in enumerate(stages)]
    rows += [(impl, f"sort/uint32/{impl}/268435456") for impl in ("thrust", "raw", "cub")]
    _stage_bars(plt, path, rows, "Gkeys/s", "radix sort, uint32 keys, n = 2^28", lambda name: _row(name, "gkeys"))


def histogram_lesson(plt, path):
    stages = ["global_atomics", "shared_atomics", "sub_histograms"]
    fig, ax = plt.subplots(figsize=(6.4, 3.4))
    width = 0.4
    impls = [f"lesson_{s}" for s in stages] + ["thrust", "cub"]
    for offset, shape in ((-width / 2, "uniform"), (width / 2, "one_bin")):
        names = [f"histogram_{shape}/float/{impl}/268435456" for impl in impls]
        ax.bar([i + offset for i in range(len(names))], [_row(n) for n in names], width=width,
               label=shape.replace("_", " "))
    ax.set_yscale("log")
    ax.set_xticks(range(len(impls)))
    ax.set_xticklabels([f"{i + 1} {s}" for i, s in enumerate(stages)] + ["thrust", "cub"], rotation=30, ha="right",
                       fontsize=8)
    ax.set_ylabel("GB/s (4 bytes per sample, log scale)")
    ax.set_title("256-bin histogram of float samples, n = 2^28")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path)


def raw_against_cub(plt, path):
    """raw over cub (GB/s, cold rows) against n: where automatic's tables switch."""
    fig, ax = plt.subplots(figsize=(6.4, 3.4))
    for algorithm, kind in (("add", "float"), ("sum", "float"), ("inclusive_scan", "float"), ("sort", "uint32"),
                            ("histogram_uniform", "float")):
        xs, ratios = [], []
        for n in SIZES:
            a, b = _cold(algorithm, kind, "raw", n), _cold(algorithm, kind, "cub", n)
            va, vb = (_row(a) if a else None), (_row(b) if b else None)
            if va and vb:
                xs.append(n)
                ratios.append(va / vb)
        ax.plot(xs, ratios, marker="o", markersize=3, label=f"{algorithm}, {kind}")
    ax.axhline(1, color="k", linewidth=0.8)
    ax.set_yscale("log", base=2)
    _size_axis(ax)
    ax.set_ylabel("raw GB/s over cub GB/s")
    ax.set_title("above 1, raw is faster; below, cub")
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path)


FIGURES = {"add_bandwidth": add_bandwidth, "roofline": roofline, "latency": latency, "cold_warm": cold_warm,
           "reduce_lesson": reduce_lesson, "scan_lesson": scan_lesson, "sort_lesson": sort_lesson,
           "histogram_lesson": histogram_lesson, "raw_against_cub": raw_against_cub}


def draw(directory):
    """Every picture into directory/NAME.png, unless every one is newer than the rows and this code."""
    sources = [os.path.join(benchdata.DEFAULT_DIR, f) for f in os.listdir(benchdata.DEFAULT_DIR)]
    sources += [os.path.abspath(__file__), os.path.abspath(benchdata.__file__)]
    newest = max(os.path.getmtime(f) for f in sources)
    pictures = [os.path.join(directory, f"{name}.png") for name in FIGURES]
    if all(os.path.exists(p) and os.path.getmtime(p) > newest for p in pictures):
        return
    plt = _plt()
    os.makedirs(directory, exist_ok=True)
    for name, function in FIGURES.items():
        function(plt, os.path.join(directory, f"{name}.png"))
        plt.close("all")
