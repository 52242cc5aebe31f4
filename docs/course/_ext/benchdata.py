# SPDX-License-Identifier: Apache-2.0
"""The committed benchmark rows (docs/benchmarks), read the way the course quotes them.

A figure in the course is written as the role {bench}`DISPLAY <TARGET>`: DISPLAY is the text the
reader sees ("4,476 GB/s"), TARGET says where it comes from. check(display, target) returns None
when DISPLAY is that value, rounded to the digits DISPLAY shows, else what is wrong. TARGET is

    ROW                 a row: algorithm/type/implementation/n[/cold|/warm]; the field follows
                        from DISPLAY's unit: GB/s, µs or us (the latency a caller sees), % (of
                        the row's own ceiling), Gkeys/s (n over the GPU time)
    ROW:FIELD           that field: GB/s, us, gpu_us, pct, gkeys, bytes (read + written), spread
                        (DISPLAY "p25-p75" of GB/s)
    A vs B              A's field over B's (DISPLAY "0.60x"; the field by A's, else GB/s)
    TARGET / K, TARGET * K   a value above divided or multiplied by the number K (a bound: a
                        ceiling over the bytes per key, say)
    ceiling:SUITE:KIND  a suite's ceiling: read, write, copy, mixed1 (one read per write) or
                        mixed2 (two reads per write), GB/s
    scale:MODE:NAME     a row of bench_scale (scale_single.json, scale_mpi.json): NAME is
                        weak|strong/operation/mode/k/n, its median; fields GB/s, us (GPU time)

Rows are looked up in every <suite>.json.gz; a name in two files is an error unless it is
prefixed with its suite (reduce:sum/float/raw/268435456/cold).
"""
import gzip
import json
import math
import os
import re

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_DIR = os.path.normpath(os.path.join(HERE, "..", "..", "benchmarks"))

_cache = {}


def load(directory=DEFAULT_DIR):
    """(rows, contexts): rows[suite][name] = {field: value}, contexts[suite] = the run's context."""
    directory = os.path.abspath(directory)
    if directory in _cache:
        return _cache[directory]
    rows, contexts = {}, {}
    for file in sorted(os.listdir(directory)):
        path = os.path.join(directory, file)
        if file.endswith(".json.gz"):
            suite = file[: -len(".json.gz")]
            with gzip.open(path, "rt") as f:
                data = json.load(f)
            columns = data["columns"]
            table = {}
            for row in data["rows"]:
                fields = {}
                for column, value in zip(columns, row[1:]):
                    stat, field = column.split(" ", 1)
                    fields[field if stat == "median" else f"{stat} {field}"] = value
                table[row[0]] = fields
            rows[suite] = table
            contexts[suite] = data.get("context", {})
        elif file.startswith("scale_") and file.endswith(".json"):
            mode = file[len("scale_"): -len(".json")]
            with open(path) as f:
                data = json.load(f)
            table = {}
            for b in data["benchmarks"]:
                if b.get("aggregate_name") != "median":
                    continue
                name = "/".join(b["run_name"].split("/")[:5])
                table[name] = {"GB/s": b.get("GB/s"), "us": b.get("gpu_us"), "wall_us": b.get("us")}
            rows[f"scale:{mode}"] = table
            contexts[f"scale:{mode}"] = data.get("context", {})
    _cache[directory] = (rows, contexts)
    return rows, contexts


def find_row(name, directory=DEFAULT_DIR):
    """The fields of row `name` (optionally suite:name), or raise KeyError saying why."""
    rows, _ = load(directory)
    if ":" in name and not name.startswith("scale:"):
        suite, name = name.split(":", 1)
        if suite not in rows or name not in rows[suite]:
            raise KeyError(f"no row {name} in {suite}.json.gz")
        return rows[suite][name]
    if name.startswith("scale:"):
        _, mode, rest = name.split(":", 2)
        table = rows.get(f"scale:{mode}", {})
        if rest not in table:
            raise KeyError(f"no row {rest} in scale_{mode}.json")
        return table[rest]
    found = [suite for suite, table in rows.items() if name in table and not suite.startswith("scale:")]
    if not found:
        raise KeyError(f"no row {name} in docs/benchmarks")
    if len(found) > 1:
        raise KeyError(f"row {name} is in {', '.join(found)}: prefix it with its suite")
    return rows[found[0]][name]


UNITS = {"GB/s": "GB/s", "µs": "us", "us": "us", "%": "pct", "Gkeys/s": "gkeys", "x": "ratio", "×": "ratio"}
NUMBER = re.compile(r"[0-9][0-9,]*(?:\.[0-9]+)?")


def field_value(fields, field, name):
    if field == "pct":
        return fields.get("pct_of_ceiling")
    if field == "gkeys":
        n = int(name.split(":")[-1].split("/")[3])
        t = fields.get("gpu_us") or fields.get("us")
        return None if t is None else n / (t * 1e3)
    if field == "bytes":
        return (fields.get("bytes_read") or 0) + (fields.get("bytes_written") or 0)
    return fields.get(field)


def unit_of(display):
    """The unit DISPLAY ends with, or ''."""
    tail = NUMBER.sub("", display).strip()
    for unit in sorted(UNITS, key=len, reverse=True):
        if tail.endswith(unit):
            return unit
    return ""


def value(target, display="", directory=DEFAULT_DIR):
    """The value (or (p25, p75) for a spread) that TARGET names, for DISPLAY's unit."""
    target = target.strip()
    scaled = re.match(r"^(.*\S) ([/*]) ([0-9.]+)$", target)
    if scaled:
        base = value(scaled.group(1), display, directory)
        factor = float(scaled.group(3))
        return base / factor if scaled.group(2) == "/" else base * factor
    unit = UNITS.get(unit_of(display), "")
    if target.startswith("ceiling:"):
        _, suite, kind = target.split(":")
        _, contexts = load(directory)
        if suite not in contexts or f"{kind}_ceiling_GBps" not in contexts[suite]:
            raise KeyError(f"no {kind} ceiling in {suite}.json.gz")
        return float(contexts[suite][f"{kind}_ceiling_GBps"])
    if " vs " in target:
        a, b = (part.strip() for part in target.split(" vs "))
        fa = a.rsplit(":", 1)[1] if re.search(r":[a-z_/A-Z]+$", a) and not a.startswith("scale:") else None
        field = fa or "GB/s"
        if fa:
            a = a.rsplit(":", 1)[0]
        if re.search(r":[a-z_/A-Z]+$", b) and not b.startswith("scale:"):
            b = b.rsplit(":", 1)[0]
        va, vb = field_value(find_row(a, directory), field, a), field_value(find_row(b, directory), field, b)
        if va is None or vb is None:
            raise KeyError(f"{target}: a row has no {field}")
        return va / vb
    field = None
    match = re.search(r":([a-zA-Z_/]+)$", target)
    if match and not (target.startswith("scale:") and target.count(":") == 2):
        field = match.group(1)
        target = target[: match.start()]
    fields = find_row(target, directory)
    if field == "spread":
        lo, hi = fields.get("p25 GB/s"), fields.get("p75 GB/s")
        if lo is None or hi is None:
            raise KeyError(f"{target} has no spread")
        return (lo, hi)
    field = field or {"ratio": "GB/s", "": "GB/s"}.get(unit, unit)
    result = field_value(fields, field, target)
    if result is None:
        raise KeyError(f"{target} has no {field}")
    return result


def matches(shown, actual):
    """Whether the number `shown` (text) is `actual` rounded to the digits shown."""
    number = float(shown.replace(",", ""))
    decimals = len(shown.split(".")[1]) if "." in shown else 0
    return math.isclose(number, actual, abs_tol=0.5 * 10 ** -decimals + 1e-9 * abs(actual))


def check(display, target, directory=DEFAULT_DIR):
    """None if DISPLAY shows what TARGET holds, else a sentence saying what differs."""
    try:
        actual = value(target, display, directory)
    except (KeyError, ValueError, IndexError) as error:
        return str(error).strip("'\"")
    numbers = NUMBER.findall(display)
    if isinstance(actual, tuple):
        if len(numbers) != 2:
            return f"'{display}': a spread shows two numbers, p25-p75"
        if not (matches(numbers[0], actual[0]) and matches(numbers[1], actual[1])):
            return f"'{display}' is not {target}'s spread, {actual[0]:,.4g}-{actual[1]:,.4g}"
        return None
    if len(numbers) != 1:
        return f"'{display}': one number expected"
    if not matches(numbers[0], actual):
        return f"'{display}' is not {target}: the data says {actual:,.6g}"
    return None


ROLE = re.compile(r"\{bench\}`([^`<]*?)\s*<([^`>]*)>`")


def roles(text):
    """Every {bench}`DISPLAY <TARGET>` in a Markdown text: (display, target, line)."""
    for match in ROLE.finditer(text):
        yield match.group(1).strip(), match.group(2).strip(), text.count("\n", 0, match.start()) + 1
