# SPDX-License-Identifier: Apache-2.0
"""Hostile inputs: DLPack capsules with every field out of range, odd buffer-protocol objects, bad
stream handles, bad histogram edges, PyTorch's lazy negative/conjugate views. Each case must end
in a clear ValueError or TypeError (with a message, naming the reason where the case says which)
or in the right answer: never a crash, never a wrong answer.

Each case runs in a child process, so that a crash is one failed test and not the end of the run:
one child runs every case of an array kind and prints a line of JSON per case; if it dies, the
cases it did not report run again, one child each, to name the one that crashed. Every case is
its own test id (kind:case), on NumPy everywhere and on PyTorch and CuPy CUDA arrays where there
is a GPU (skipped, with the reason, elsewhere); the run's summary counts them per kind.

    python tests/test_hostile.py --child KIND < case-ids.json   # what a child runs
"""
import array as _array
import ctypes
import json
import os
import re
import subprocess
import sys

import numpy as np
import pytest

KINDS = ("numpy", "torch", "cupy")
REFUSALS = ("ValueError", "TypeError")


class Case:
    """expect: "ok" (must work and be right), "refused" (ValueError or TypeError, its message
    matching `match`), or "either". `allow` adds exception types that count as a clear refusal
    (a GPU this process cannot reach is a RuntimeError naming it)."""

    def __init__(self, name, kinds, expect, run, match=None, allow=()):
        self.name, self.kinds, self.expect, self.run = name, kinds, expect, run
        self.match, self.allow = match, tuple(allow)


CASES = {}


def case(name, kinds, expect, match=None, allow=()):
    def register(run):
        assert name not in CASES, name
        CASES[name] = Case(name, kinds, expect, run, match, allow)
        return run
    return register


def prism():
    import prism_primitives
    return prism_primitives


# ---- the array kinds, as the child sees them -------------------------------------------------------

class NumpyEnv:
    """Host memory: NumPy arrays, DLPack device CPU."""
    name = "numpy"
    dl_device = (1, 0)

    def memory(self, host):
        """A copy of host in this kind's memory, and its address."""
        copy = np.array(host)
        return copy, copy.ctypes.data

    def native(self, host):
        return np.array(host)

    def read(self, array):
        return np.array(array)

    def sync(self):
        pass


class TorchEnv:
    name = "torch"

    def __init__(self):
        import torch
        self.torch = torch
        self.dl_device = (2, torch.cuda.current_device())

    def memory(self, host):
        tensor = self.native(host)
        return tensor, tensor.data_ptr()

    def native(self, host):
        return self.torch.from_numpy(np.array(host)).to("cuda")

    def read(self, array):
        # A tensor, or what prism returns for an object of no library (a prism.Array, read as NumPy)
        return array.cpu().numpy() if isinstance(array, self.torch.Tensor) else np.asarray(array)

    def sync(self):
        self.torch.cuda.synchronize()


class CupyEnv:
    name = "cupy"

    def __init__(self):
        import cupy
        self.cupy = cupy
        self.dl_device = (2, cupy.cuda.Device().id)

    def memory(self, host):
        copy = self.native(host)
        return copy, copy.data.ptr

    def native(self, host):
        return self.cupy.asarray(np.array(host))

    def read(self, array):
        return self.cupy.asnumpy(array)

    def sync(self):
        self.cupy.cuda.Device().synchronize()


ENVS = {"numpy": NumpyEnv, "torch": TorchEnv, "cupy": CupyEnv}


# ---- DLPack capsules made here ----------------------------------------------------------------------

class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", DLDevice), ("ndim", ctypes.c_int32),
                ("dtype", DLDataType), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


DELETER = ctypes.CFUNCTYPE(None, ctypes.c_void_p)


class DLManagedTensor(ctypes.Structure):
    _fields_ = [("dl_tensor", DLTensor), ("manager_ctx", ctypes.c_void_p), ("deleter", DELETER)]


class DLPackVersion(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32)]


class DLManagedTensorVersioned(ctypes.Structure):
    _fields_ = [("version", DLPackVersion), ("manager_ctx", ctypes.c_void_p), ("deleter", DELETER),
                ("flags", ctypes.c_uint64), ("dl_tensor", DLTensor)]


def _capsule_api():
    new = ctypes.pythonapi.PyCapsule_New
    new.restype, new.argtypes = ctypes.py_object, [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
    name = ctypes.pythonapi.PyCapsule_GetName
    name.restype, name.argtypes = ctypes.c_char_p, [ctypes.py_object]
    return new, name


CAPSULE_NEW, CAPSULE_NAME = _capsule_api()
KEEP = []  # what a capsule or a memoryview made here points to, alive for the child's life


class Producer:
    """An array that speaks DLPack with the tensor it is told to describe: every field is the
    caller's. Each __dlpack__ call makes a fresh capsule (without a destructor: what the consumer
    does not consume stays here); the deleter counts its calls."""

    def __init__(self, env, memory, address, shape, *, ndim=None, dtype=(2, 32, 1), strides=None,
                 byte_offset=0, data=None, device=None, shape_null=False, versioned=None, flags=0,
                 name=None, returns=None, raises=None, dlpack_device=None):
        self.memory, self.address = memory, address
        self.shape, self.ndim, self.dtype, self.strides = list(shape), ndim, dtype, strides
        self.byte_offset, self.data, self.shape_null = byte_offset, data, shape_null
        self.device = device if device is not None else env.dl_device
        self.versioned, self.flags, self.name = versioned, flags, name
        self.returns, self.raises, self.dlpack_device = returns, raises, dlpack_device
        self.capsules, self.deleted = [], 0  # capsules made, each with its name at birth
        self._deleter = DELETER(self._delete)

    def _delete(self, pointer):
        self.deleted += 1

    def __dlpack_device__(self):
        if self.dlpack_device is not None:
            return self.dlpack_device() if callable(self.dlpack_device) else self.dlpack_device
        return self.device

    def __dlpack__(self, stream=None, **ignored):
        if self.raises is not None:
            raise self.raises
        if self.returns is not None:
            return self.returns
        shape = (ctypes.c_int64 * max(len(self.shape), 1))(*self.shape)
        strides = None if self.strides is None else (ctypes.c_int64 * max(len(self.strides), 1))(*self.strides)
        tensor = DLTensor(self.address if self.data is None else self.data, DLDevice(*self.device),
                          len(self.shape) if self.ndim is None else self.ndim, DLDataType(*self.dtype),
                          None if self.shape_null else shape, strides, self.byte_offset)
        if self.versioned is not None:
            managed = DLManagedTensorVersioned(DLPackVersion(*self.versioned), None, self._deleter, self.flags,
                                               tensor)
            name = b"dltensor_versioned"
        else:
            managed = DLManagedTensor(tensor, None, self._deleter)
            name = b"dltensor"
        name = self.name if self.name is not None else name
        KEEP.append((managed, shape, strides, name))
        capsule = CAPSULE_NEW(ctypes.addressof(managed), None if name == b"" else name, None)
        self.capsules.append((capsule, CAPSULE_NAME(capsule)))
        return capsule

    def check_deleters(self):
        """Every capsule the consumer renamed (consumed) had its deleter called once; no other."""
        consumed = sum(1 for c, born in self.capsules if CAPSULE_NAME(c) != born)
        assert consumed == self.deleted, f"{consumed} capsules consumed, {self.deleted} deleter calls"


SIXTEEN = np.arange(1, 17, dtype=np.float32)


def fresh_memory(env):
    """Sixteen float32 values, then room (zeros) where a wrong reader would land."""
    host = np.zeros(64, np.float32)
    host[:16] = SIXTEEN
    return env.memory(host)


# Each field case: the tensor's fields (Producer keywords), and what must happen: the elements
# a valid tensor holds (offset into the memory, count), or the reason a refusal must name.
F32 = (2, 32, 1)
FIELD_CASES = {
    "valid": dict(shape=[16], strides=[1], valid=(0, 16)),
    "strides-null": dict(shape=[16], valid=(0, 16)),
    "two-dimensions": dict(shape=[4, 4], strides=[4, 1], valid=(0, 16)),
    "ndim=0": dict(shape=[], valid=(0, 1)),
    "ndim=0-shape-null": dict(shape=[], shape_null=True, valid=(0, 1)),
    "ndim=64": dict(shape=[16] + [1] * 63, valid=(0, 16)),
    "ndim=-1": dict(shape=[16], ndim=-1, match="dimensions"),
    "ndim=65": dict(shape=[16] + [1] * 64, match="dimensions"),
    "ndim=2^31-1": dict(shape=[16], ndim=2**31 - 1, match="dimensions"),
    "ndim=-2^31": dict(shape=[16], ndim=-2**31, match="dimensions"),
    "shape-null": dict(shape=[16], shape_null=True, match="no shape"),
    "extent=-1": dict(shape=[-1], match="negative extent"),
    "extent=-16": dict(shape=[4, -16], match="negative extent"),
    "extent=2^62+3": dict(shape=[2**62 + 3], match="too large"),
    "extent=2^62": dict(shape=[2**62], match="too large"),
    "extent=2^61": dict(shape=[2**61], match="too large"),  # 2^63 bytes of float32
    "extent=2^63-1": dict(shape=[2**63 - 1], match="too large"),
    "shape=2^32x2^32": dict(shape=[2**32, 2**32], match="too large"),
    "shape=(2^32+1)x2^32": dict(shape=[2**32 + 1, 2**32], match="too large"),
    "shape=2^31x2^31x4": dict(shape=[2**31, 2**31, 4], match="too large"),
    "shape=0x2^62x2^62": dict(shape=[0, 2**62, 2**62], valid=(0, 0)),
    "empty": dict(shape=[0], valid=(0, 0)),
    "strides-negative": dict(shape=[16], strides=[-1], match="not contiguous"),
    "strides-zero": dict(shape=[16], strides=[0], match="not contiguous"),
    "strides-two": dict(shape=[8], strides=[2], match="not contiguous"),
    "strides-transposed": dict(shape=[4, 4], strides=[1, 4], match="not contiguous"),
    "strides-huge": dict(shape=[16], strides=[2**62], match="not contiguous"),
    "strides-int64-min": dict(shape=[4, 4], strides=[-2**63, 1], match="not contiguous"),
    "strides-huge-on-extent-1": dict(shape=[1, 16], strides=[2**62, 1], valid=(0, 16)),
    "strides-negative-on-extent-1": dict(shape=[16, 1], strides=[1, -2**63], valid=(0, 16)),
    "strides-any-on-one-element": dict(shape=[1], strides=[-7], valid=(0, 1)),
    "byte_offset=4": dict(shape=[15], byte_offset=4, valid=(1, 15)),
    "byte_offset=1": dict(shape=[15], byte_offset=1, match="misaligned"),
    "byte_offset=2": dict(shape=[15], byte_offset=2, match="misaligned"),
    "byte_offset=3": dict(shape=[15], byte_offset=3, match="misaligned"),
    "byte_offset=2^64-4": dict(shape=[15], byte_offset=2**64 - 4, match="end of memory"),
    "byte_offset=2^63": dict(shape=[15], byte_offset=2**63, match="end of memory"),
    "data-misaligned": dict(shape=[15], data="+2", match="misaligned"),
    "data-null": dict(shape=[16], data=0, match="null"),
    "data-null-empty": dict(shape=[0], data=0, valid=(0, 0)),
    "data-null-offset": dict(shape=[16], data=0, byte_offset=1 << 20, match="null"),
    "data-top-of-memory": dict(shape=[16], data=2**64 - 64, match="end of memory"),
    "dtype-code=3": dict(shape=[16], dtype=(3, 32, 1), match="element type"),
    "dtype-code=5": dict(shape=[8], dtype=(5, 64, 1), match="element type"),
    "dtype-code=7": dict(shape=[16], dtype=(7, 32, 1), match="element type"),
    "dtype-code=255": dict(shape=[16], dtype=(255, 32, 1), match="element type"),
    "dtype-bits=0": dict(shape=[16], dtype=(2, 0, 1), match="element type"),
    "dtype-bits=7": dict(shape=[16], dtype=(2, 7, 1), match="element type"),
    "dtype-bits=24": dict(shape=[16], dtype=(2, 24, 1), match="element type"),
    "dtype-bits=128": dict(shape=[4], dtype=(2, 128, 1), match="element type"),
    "dtype-int8": dict(shape=[16], dtype=(0, 8, 1), match="int8"),
    "dtype-lanes=0": dict(shape=[16], dtype=(2, 32, 0), match="element type"),
    "dtype-lanes=2": dict(shape=[8], dtype=(2, 32, 2), match="element type"),
    "dtype-lanes=4": dict(shape=[4], dtype=(2, 32, 4), match="element type"),
    "device-type=4": dict(shape=[16], device=(4, 0), match="opencl"),
    "device-type=7": dict(shape=[16], device=(7, 0), match="vulkan"),
    "device-type=99": dict(shape=[16], device=(99, 0), match="device type 99"),
    "device-type=-1": dict(shape=[16], device=(-1, 0), match="device type -1"),
    "device-type=0": dict(shape=[16], device=(0, 0), match="device type 0"),
    "device-id=-1": dict(shape=[16], device="id:-1", match="device -1"),
    "device-id=2^31-1": dict(shape=[16], device="id:2147483647", maybe=(0, 16), allow=("RuntimeError",),
                             match="2147483647"),
    "versioned-1.0": dict(shape=[16], versioned=(1, 0), valid=(0, 16)),
    "versioned-1.7": dict(shape=[16], versioned=(1, 7), flags=2, valid=(0, 16)),
    "versioned-0.8": dict(shape=[16], versioned=(0, 8), match="DLPack 0.8"),
    "versioned-2.0": dict(shape=[16], versioned=(2, 0), match="DLPack 2.0"),
    "versioned-read-only": dict(shape=[16], versioned=(1, 0), flags=1, read_only=True),
    "capsule-name-wrong": dict(shape=[16], name=b"not_a_tensor", match="no DLPack tensor"),
    "capsule-name-null": dict(shape=[16], name=b"", match="no DLPack tensor"),
    "capsule-already-used": dict(shape=[16], name=b"used_dltensor", match="already consumed"),
    # A producer that names its struct wrongly: read as the other layout, it fails a check.
    "capsule-versioned-name-on-unversioned": dict(shape=[16], name=b"dltensor_versioned"),
    "capsule-unversioned-name-on-versioned": dict(shape=[16], name=b"dltensor", versioned=(1, 0)),
    "returns-int": dict(shape=[16], returns=5, match="int"),
    "returns-ndarray": dict(shape=[16], returns="ndarray", match="ndarray"),
    "raises-runtime-error": dict(shape=[16], raises=RuntimeError("the producer refuses"),
                                 match="the producer refuses"),
    "raises-buffer-error": dict(shape=[16], raises=BufferError("cannot export"), match="cannot export"),
    "dlpack-device-raises": dict(shape=[16], dlpack_device="raise", match="__dlpack_device__"),
    "dlpack-device-garbage": dict(shape=[16], dlpack_device="garbage", match="__dlpack_device__"),
}


def _producer(env, spec):
    memory, address = fresh_memory(env)
    keywords = {k: spec[k] for k in ("ndim", "dtype", "strides", "byte_offset", "shape_null", "versioned", "flags",
                                     "name") if k in spec}
    device = spec.get("device")
    if isinstance(device, str):  # the kind's device type with another id
        device = (env.dl_device[0], int(device[3:]))
    data = spec.get("data")
    if data == "+2":
        data = address + 2
    returns = spec.get("returns")
    if isinstance(returns, str):
        returns = np.zeros(4, np.float32)
    dlpack_device = {"raise": lambda: 1 / 0, "garbage": lambda: ("cpu",)}.get(spec.get("dlpack_device"))
    return Producer(env, memory, address, spec["shape"], device=device, data=data, returns=returns,
                    raises=spec.get("raises"), dlpack_device=dlpack_device, **keywords)


def _elements(env, producer, spec, key="valid"):
    offset, count = spec[key]
    return env.read(producer.memory)[offset:offset + count]


def _dlpack_target(spec, target):
    def run(env):
        p = prism()
        x = _producer(env, spec)
        valid = spec.get("valid") or spec.get("maybe")
        count = valid[1] if valid else 16
        try:
            if target == "sum":
                expected = _elements(env, x, spec, "valid" if "valid" in spec else "maybe").sum() if valid else None
                got = p.sum(x)
                got = got if isinstance(got, (np.generic, float, int)) else env.read(got)[()]
                assert got == expected, f"sum {got}, expected {expected}"
            elif target == "add":
                y = env.native(np.full(count, 77, np.float32))
                before = _elements(env, x, spec, "valid" if "valid" in spec else "maybe") if valid else None
                assert p.add(x, x, out=y) is y
                np.testing.assert_array_equal(env.read(y).reshape(-1), 2 * before.reshape(-1))
            else:  # as out=
                a = env.native(np.arange(100, 100 + count, dtype=np.float32))
                p.add(a, a, out=x)
                offset = (valid or (0, 0))[0]
                got = env.read(x.memory)[offset:offset + count]
                np.testing.assert_array_equal(got, 2 * np.arange(100, 100 + count, dtype=np.float32))
        finally:
            x.check_deleters()
    return run


def _register_field_cases():
    for field, fields in FIELD_CASES.items():
        for target in ("sum", "add", "out"):
            spec = fields
            if "valid" in spec:
                expect = "ok"
            elif spec.get("read_only"):  # read-only is fine to read from, refused as an output
                spec = dict(spec, valid=(0, 16)) if target != "out" else dict(spec, match="read-only")
                expect = "ok" if target != "out" else "refused"
            elif "maybe" in spec:
                expect = "either"
            else:
                expect = "refused"
            case(f"dlpack:{field}:{target}", KINDS, expect, spec.get("match"), spec.get("allow", ()))(
                _dlpack_target(spec, target))


_register_field_cases()


@case("dlpack:raw-capsule-consumed-once", KINDS, "ok")
def _raw_capsule(env):
    """A capsule passed itself: consumed by the call, then refused as used."""
    p = prism()
    x = _producer(env, dict(shape=[16]))
    capsule = x.__dlpack__()
    a = env.native(SIXTEEN)
    p.add(a, a, out=capsule)  # the capsule speaks for the memory: written in place
    np.testing.assert_array_equal(env.read(x.memory)[:16], 2 * SIXTEEN)
    assert CAPSULE_NAME(capsule) == b"used_dltensor"
    try:
        p.add(a, a, out=capsule)
    except ValueError as error:
        assert "already consumed" in str(error)
    else:
        raise AssertionError("a used capsule was accepted")
    assert x.deleted == 1
    assert p.sum(x.__dlpack__()) == 272  # its type read first, without consuming it
    assert x.deleted == 2


@case("dlpack:cuda-over-host-memory", ("numpy",), "either", allow=("RuntimeError",))
def _cuda_over_host(env):
    """Host memory that claims to be a CUDA device's: the library goes by where the memory is
    (the cpu implementation, or a refusal; without a GPU, a RuntimeError naming the device)."""
    x = _producer(env, dict(shape=[16], device=(2, 0)))
    out = np.zeros(1, np.float32)
    prism().sum(x, out=out)
    assert out[0] == 136


@case("dlpack:cpu-over-device-memory", ("torch", "cupy"), "either")
def _cpu_over_device(env):
    """Device memory that claims to be host memory: the library goes by where the memory is (the
    GPU, with a device output; refused beside a host output)."""
    x = _producer(env, dict(shape=[16], device=(1, 0)))
    assert prism().sum(x) == 136
    prism().add(x, x, out=np.zeros(16, np.float32))


# ---- the CUDA array interface ------------------------------------------------------------------------

class CaiProducer:
    """An object that speaks only __cuda_array_interface__, with the dictionary it is told to give
    (every field the caller's; `raises` makes the attribute itself fail)."""

    def __init__(self, memory, interface, raises=None):
        self.memory, self.interface, self.raises = memory, interface, raises

    @property
    def __cuda_array_interface__(self):
        if self.raises is not None:
            raise self.raises
        return self.interface


_ABSENT = object()

# Each case: the dictionary's fields changed from a valid one (16 float32 at the memory's address,
# version 3, no stream; _ABSENT removes a field; "addr+N" is the memory's address plus N), and
# what must happen: "valid" (offset, count) of the elements a valid interface holds, or the
# reason a refusal names.
CAI_CASES = {
    "valid": dict(valid=(0, 16)),
    "version-0": dict(version=0, valid=(0, 16)),
    "version-1": dict(version=1, valid=(0, 16)),
    "version-2": dict(version=2, valid=(0, 16)),
    "version-4": dict(version=4, match="version"),
    "version--1": dict(version=-1, match="version"),
    "version-str": dict(version="3", match="version"),
    "version-float": dict(version=3.0, match="version"),
    "version-bool": dict(version=True, match="version"),
    "version-2^64": dict(version=2**64, match="version"),
    "version-absent": dict(version=_ABSENT, match="without 'version'"),
    "shape-absent": dict(shape=_ABSENT, match="without 'shape'"),
    "typestr-absent": dict(typestr=_ABSENT, match="without 'typestr'"),
    "data-absent": dict(data=_ABSENT, match="without 'data'"),
    "shape-list": dict(shape=[16], valid=(0, 16)),
    "shape-2d": dict(shape=(4, 4), valid=(0, 16)),
    "shape-0d": dict(shape=(), valid=(0, 1)),
    "shape-empty": dict(shape=(0,), valid=(0, 0)),
    "shape-str": dict(shape="16", match="not a tuple"),
    "shape-int": dict(shape=16, match="not a tuple"),
    "shape-none": dict(shape=None, match="not a tuple"),
    "extent-negative": dict(shape=(-1,), match="negative extent"),
    "extent-float": dict(shape=(16.0,), match="not an int"),
    "extent-bool": dict(shape=(True,), match="not an int"),
    "extent-str": dict(shape=("16",), match="not an int"),
    "extent-2^62+3": dict(shape=(2**62 + 3,), match="too large"),
    "extent-2^64": dict(shape=(2**64,), match="too large"),
    "extent--2^70": dict(shape=(-2**70,), match="too large"),
    "shape-2^32x2^32": dict(shape=(2**32, 2**32), match="too large"),
    "ndim-65": dict(shape=(16,) + (1,) * 64, match="dimensions"),
    "ndim-64": dict(shape=(16,) + (1,) * 63, valid=(0, 16)),
    "typestr-big-endian": dict(typestr=">f4", match="byte order"),
    "typestr-bar-f4": dict(typestr="|f4", match="byte order"),
    "typestr-native": dict(typestr="=f4", valid=(0, 16)),
    "typestr-complex": dict(typestr="<c8", shape=(8,), match="does not support"),
    "typestr-int16": dict(typestr="<i2", shape=(32,), match="int16"),
    "typestr-int8": dict(typestr="|i1", shape=(64,), match="int8"),
    "typestr-f": dict(typestr="<f", match="typestr"),
    "typestr-f4x": dict(typestr="<f4x", match="typestr"),
    "typestr-empty": dict(typestr="", match="typestr"),
    "typestr-long": dict(typestr="<f00004", match="typestr"),
    "typestr-int": dict(typestr=4, match="not a str"),
    "typestr-bytes": dict(typestr=b"<f4", match="not a str"),
    "typestr-object": dict(typestr="|O8", match="does not support"),
    "data-list": dict(data="list", match="pair"),
    "data-one": dict(data="one", match="pair"),
    "data-three": dict(data="three", match="pair"),
    "data-none": dict(data=None, match="pair"),
    "data-pointer-str": dict(data=("0x1000", False), match="not an int"),
    "data-pointer-float": dict(data=(4096.0, False), match="not an int"),
    "data-pointer-bool": dict(data=(True, False), match="not an int"),
    "data-pointer-negative": dict(data=(-4096, False), match="outside"),
    "data-pointer-2^64": dict(data=(2**64, False), match="outside"),
    "data-pointer-null": dict(data=(0, False), match="null"),
    "data-pointer-null-empty": dict(data=(0, False), shape=(0,), valid=(0, 0)),
    "data-pointer-misaligned": dict(data=("addr+2", False), shape=(15,), match="misaligned"),
    "data-pointer-top-of-memory": dict(data=(2**64 - 64, False), match="end of memory"),
    "data-readonly-int": dict(data=("addr+0", 0), match="not a bool"),
    "data-readonly-none": dict(data=("addr+0", None), match="not a bool"),
    "data-readonly": dict(data=("addr+0", True), read_only=True),
    "strides-none": dict(strides=None, valid=(0, 16)),
    "strides-contiguous": dict(strides=(4,), valid=(0, 16)),
    "strides-two": dict(strides=(8,), shape=(8,), match="not contiguous"),
    "strides-negative": dict(strides=(-4,), match="not contiguous"),
    "strides-zero": dict(strides=(0,), match="not contiguous"),
    "strides-in-elements": dict(strides=(1,), match="not contiguous"),
    "strides-transposed": dict(strides=(4, 16), shape=(4, 4), match="not contiguous"),
    "strides-count": dict(strides=(4, 4), match="strides for"),
    "strides-str": dict(strides="4", match="not a tuple"),
    "strides-float": dict(strides=(4.0,), match="not an int"),
    "strides-2^64": dict(strides=(2**64,), match="not contiguous"),
    "strides-on-extent-1": dict(strides=(2**62, 4), shape=(1, 16), valid=(0, 16)),
    "mask-none": dict(mask=None, valid=(0, 16)),
    "mask-array": dict(mask="mask", match="masked"),
    "descr-garbage": dict(descr="garbage", valid=(0, 16)),
    "stream-none": dict(stream=None, valid=(0, 16)),
    "stream-1": dict(stream=1, valid=(0, 16)),
    "stream-2": dict(stream=2, valid=(0, 16)),
    "stream-0": dict(stream=0, match="not allowed"),
    "stream--1": dict(stream=-1, match="not a CUDA stream"),
    "stream-3": dict(stream=3, match="not a CUDA stream"),
    "stream-12345": dict(stream=12345, match="not a CUDA stream"),
    "stream-2^64": dict(stream=2**64, match="not a CUDA stream"),
    "stream-top-of-user-space": dict(stream="top", match="not a CUDA stream"),
    "stream-bool": dict(stream=True, match="bool"),
    "stream-str": dict(stream="1", match="not an int"),
    "stream-float": dict(stream=1.0, match="not an int"),
    "not-a-dict": dict(interface=[("shape", (16,))], match="not a dict"),
    "interface-none": dict(interface=None, match="not a dict"),
    "raises": dict(raises=RuntimeError("the producer is gone"), match="the producer is gone"),
}


def _cai_producer(env, spec):
    memory, address = fresh_memory(env)
    interface = {"shape": (16,), "typestr": "<f4", "data": (address, False), "version": 3}
    for key in ("version", "shape", "typestr", "data", "strides", "mask", "descr", "stream"):
        if key not in spec:
            continue
        value = spec[key]
        if value is _ABSENT:
            interface.pop(key, None)
            continue
        if key == "data" and isinstance(value, str):
            value = {"list": [address, False], "one": (address,), "three": (address, False, 0)}[value]
        elif key == "data" and isinstance(value, tuple) and str(value[0]).startswith("addr+"):
            value = (address + int(value[0][5:]), value[1])
        elif key == "mask":
            value = value if value is None else np.zeros(16, bool)
        elif key == "stream" and value == "top":
            value = prism()._USER_SPACE
        interface[key] = value
    if "interface" in spec:
        interface = spec["interface"]
    return CaiProducer(memory, interface, spec.get("raises"))


def _cai_target(spec, target):
    def run(env):
        p = prism()
        x = _cai_producer(env, spec)
        valid = spec.get("valid") or ((0, 16) if spec.get("read_only") and target != "out" else None)
        count = valid[1] if valid else 16
        if target == "sum":
            got = p.sum(x)
            got = got if isinstance(got, (np.generic, float, int)) else env.read(prism_array_host(got))[()]
            expected = env.read(x.memory)[valid[0]:valid[0] + count].sum() if valid else None
            assert got == expected, f"sum {got}, expected {expected}"
        elif target == "add":
            y = env.native(np.full(count, 77, np.float32))
            p.add(x, x, out=y)
            np.testing.assert_array_equal(env.read(y).reshape(-1),
                                          2 * env.read(x.memory)[valid[0]:valid[0] + count].reshape(-1))
        else:
            a = env.native(np.arange(100, 100 + count, dtype=np.float32))
            p.add(a, a, out=x)
            offset = (valid or (0, 0))[0]
            got = env.read(x.memory)[offset:offset + count]
            np.testing.assert_array_equal(got, 2 * np.arange(100, 100 + count, dtype=np.float32))
    return run


def prism_array_host(x):
    """A result prism allocated (a prism.Array, for an object of no library) as NumPy."""
    return np.asarray(x) if type(x).__name__ == "Array" else x


@case("array:reshape-wrapping-past-2^63", ("torch", "cupy"), "ok")
def _array_reshape(env):
    """prism.Array.reshape refuses extents whose product wraps around to the size: (2^61 + 1) x 8
    would be a view of 2^64 + 8 elements over 8."""
    x = _cai_producer(env, dict(shape=(8,)))  # an object of no library: the result is a prism.Array
    r = prism().add(x, x)
    assert type(r).__name__ == "Array", type(r)
    for shape in ((2**61 + 1, 8), (8, 2**61 + 1), (2**32, 2**32), (2**62, 2**62, 4), (-1, 2**62, 2**62)):
        try:
            r.reshape(*shape)
        except ValueError:
            continue
        raise AssertionError(f"reshape{shape} of 8 elements was taken")
    assert r.reshape(2, 4).shape == (2, 4) and r.reshape(-1, 2).shape == (4, 2)


def _register_cai_cases():
    for field, spec in CAI_CASES.items():
        for target in ("sum", "add", "out"):
            if "valid" in spec or (spec.get("read_only") and target != "out"):
                expect, match = "ok", None
            elif spec.get("read_only"):
                expect, match = "refused", "read-only"
            else:
                expect, match = "refused", spec.get("match")
            run = _cai_target(spec, target)
            # On GPU memory (PyTorch's or CuPy's): as the case says.
            case(f"cai:{field}:{target}", ("torch", "cupy"), expect, match)(run)
            # On host memory: a valid interface is refused as not CUDA memory where there is a GPU,
            # and is a RuntimeError naming the device where there is none; the others as above.
            if expect == "ok":
                case(f"cai-host:{field}:{target}", ("numpy",), "either", None, ("RuntimeError",))(run)
            else:
                # Where there is a GPU, the host pointer may be refused before what the case breaks.
                either = f"(?:{match})|not CUDA memory" if match else None
                case(f"cai-host:{field}:{target}", ("numpy",), "refused", either)(run)


_register_cai_cases()


# ---- the buffer protocol ----------------------------------------------------------------------------

def _ctypes_case(ctype, dtype, op):
    def run(env):
        p = prism()
        values = np.arange(1, 10).astype(dtype)
        x = (ctype * len(values))(*values.tolist())
        if op == "sum":
            expected = values.sum(dtype=np.int64 if values.dtype.kind == "i" else
                                  np.uint64 if values.dtype.kind == "u" else values.dtype)
            assert p.sum(x) == expected
            out = (ctype * len(values))()
            assert p.add(x, x, out=out) is out
            np.testing.assert_array_equal(np.frombuffer(out, dtype), 2 * values)
            allocated = p.add(x, x)  # allocated as NumPy, shaped like x
            assert allocated.dtype == np.dtype(dtype) and allocated.shape == values.shape
            np.testing.assert_array_equal(allocated, 2 * values)
        elif op == "histogram":
            got = p.histogram(x, 4, 0, 16)
            np.testing.assert_array_equal(got, np.histogram(values, 4, (0, 16))[0])
        else:  # where: the condition
            flags = (ctype * 4)(True, False, False, True)
            got = p.where(flags, np.ones(4, np.float32), np.zeros(4, np.float32))
            np.testing.assert_array_equal(got, [1, 0, 0, 1])
    return run


for _name, _ctype, _dtype, _op in (
        ("c_float", ctypes.c_float, np.float32, "sum"), ("c_double", ctypes.c_double, np.float64, "sum"),
        ("c_int32", ctypes.c_int32, np.int32, "sum"), ("c_int64", ctypes.c_int64, np.int64, "sum"),
        ("c_uint32", ctypes.c_uint32, np.uint32, "sum"), ("c_uint64", ctypes.c_uint64, np.uint64, "sum"),
        ("c_longlong", ctypes.c_longlong, np.int64, "sum"), ("c_uint8", ctypes.c_uint8, np.uint8, "histogram"),
        ("c_bool", ctypes.c_bool, np.bool_, "where")):
    case(f"buffer:ctypes-{_name}-{_op}", ("numpy",), "ok")(_ctypes_case(_ctype, _dtype, _op))


@case("buffer:ctypes-2d", ("numpy",), "ok")
def _ctypes_2d(env):
    x = ((ctypes.c_float * 4) * 3)()
    for i in range(3):
        for j in range(4):
            x[i][j] = 4 * i + j
    got = prism().add(x, x)
    assert got.shape == (3, 4)
    np.testing.assert_array_equal(got, 2 * np.arange(12, dtype=np.float32).reshape(3, 4))
    assert prism().sum(x) == 66


@case("buffer:ctypes-empty", ("numpy",), "ok")
def _ctypes_empty(env):
    assert prism().sum((ctypes.c_float * 0)()) == 0


@case("buffer:ctypes-structure", ("numpy",), "refused", match="format")
def _ctypes_structure(env):
    class Point(ctypes.Structure):
        _fields_ = [("x", ctypes.c_float), ("y", ctypes.c_float)]
    prism().sum((Point * 4)())


@case("buffer:ctypes-big-endian", ("numpy",), "refused", match="byte order")
def _ctypes_big_endian(env):
    prism().sum((ctypes.c_float.__ctype_be__ * 4)(1, 2, 3, 4))


@case("buffer:ctypes-int16", ("numpy",), "refused", match="int16")
def _ctypes_int16(env):
    prism().sum((ctypes.c_int16 * 4)(1, 2, 3, 4))


@case("buffer:ctypes-char", ("numpy",), "refused", match="format")
def _ctypes_char(env):
    prism().sum((ctypes.c_char * 4)())


def _refused_view(make, target="sum"):
    def run(env):
        p = prism()
        x = make()
        if target == "sum":
            p.sum(x)
        else:
            p.add(np.ones(4, np.float32), np.ones(4, np.float32), out=x)
    return run


for _name, _make, _match in (
        ("big-endian-memoryview", lambda: memoryview(np.ones(4, ">f4")), "byte order"),
        ("big-endian-numpy", lambda: np.ones(4, ">f4"), "byte order"),
        ("pad-bytes", lambda: memoryview(np.zeros(4, "V4")), "format"),
        ("complex", lambda: memoryview(np.zeros(4, np.complex64)), "format"),
        ("complex-numpy", lambda: np.zeros(4, np.complex128), "format"),
        ("strings", lambda: memoryview(np.zeros(4, "S3")), "format"),
        ("subarray-struct", lambda: memoryview(np.zeros(4, [("a", "f4", 3)])), "format"),
        ("struct", lambda: np.zeros(4, [("a", "f4"), ("b", "i4")]), "format"),
        ("objects", lambda: np.array([1.0, 2.0, None, 4.0], dtype=object), "format"),
        ("long-double", lambda: np.ones(4, np.longdouble), "format"),
        ("datetime", lambda: np.zeros(4, "M8[s]"), "buffer protocol"),
        ("int8", lambda: np.ones(4, np.int8), "int8"),
        ("uint16", lambda: np.ones(4, np.uint16), "uint16"),
        ("array-int8", lambda: _array.array("b", [1, 2, 3, 4]), "int8"),
        ("array-int16", lambda: _array.array("h", [1, 2, 3, 4]), "int16"),
        ("array-unicode", lambda: _array.array("u", "abcd"), "format"),
        ("non-contiguous-memoryview", lambda: memoryview(np.ones(8, np.float32))[::2], "not contiguous"),
        ("non-contiguous-reversed", lambda: memoryview(np.ones(8, np.float32))[::-1], "not contiguous"),
        ("transposed", lambda: memoryview(np.ones((3, 4), np.float32).T), "not contiguous"),
        ("misaligned-numpy", lambda: np.frombuffer(bytearray(68), np.float32, offset=1, count=16), "misaligned"),
        ("misaligned-float64", lambda: np.frombuffer(bytearray(136), np.float64, offset=4, count=16),
         "misaligned"),
        ("misaligned-memoryview", lambda: memoryview(bytearray(68))[2:66].cast("f"), "misaligned"),
        ("not-an-array", lambda: [1.0, 2.0, 3.0, 4.0], "not an array"),
        ("a-string", lambda: "abcd", "not an array"),
):
    case(f"buffer:{_name}:sum", ("numpy",), "refused", _match)(_refused_view(_make))
    case(f"buffer:{_name}:out", ("numpy",), "refused", _match if _name != "datetime" else None)(
        _refused_view(_make, "out"))


@case("buffer:read-only-memoryview-as-out", ("numpy",), "refused", match="read-only")
def _read_only_out(env):
    out = memoryview(np.zeros(4, np.float32)).toreadonly()
    prism().add(np.ones(4, np.float32), np.ones(4, np.float32), out=out)


@case("buffer:bytes-as-out", ("numpy",), "refused", match="read-only")
def _bytes_out(env):
    prism().histogram(np.ones(4, np.float32), lo=0.0, hi=2.0, out=bytes(32))


@case("buffer:read-only-numpy-as-out", ("numpy",), "refused", match="read-only")
def _read_only_numpy_out(env):
    out = np.zeros(4, np.float32)
    out.flags.writeable = False
    prism().add(np.ones(4, np.float32), np.ones(4, np.float32), out=out)


@case("buffer:bytes-histogram", ("numpy",), "ok")
def _bytes_histogram(env):
    data = bytes(range(256)) * 3
    np.testing.assert_array_equal(prism().histogram(data, 4, 0, 256), [192] * 4)


@case("buffer:bytearray-flags-and-out", ("numpy",), "ok")
def _bytearray(env):
    values = np.arange(6, dtype=np.float32)
    got = prism().compact(values, bytearray([1, 0, 1, 0, 0, 1]))
    np.testing.assert_array_equal(got, [0, 2, 5])
    flags = bytearray(b"\x01\x00\x01")
    kept = prism().where(flags, np.ones(3, np.float64), np.zeros(3, np.float64))
    np.testing.assert_array_equal(kept, [1, 0, 1])


@case("buffer:array-float", ("numpy",), "ok")
def _array_float(env):
    x = _array.array("f", [1, 2, 3, 4])
    assert prism().sum(x) == 10
    out = _array.array("f", [0] * 4)
    prism().add(x, x, out=out)
    assert list(out) == [2, 4, 6, 8]
    got = prism().mul(x, x)
    assert got.dtype == np.float32 and list(got) == [1, 4, 9, 16]


@case("buffer:array-int64", ("numpy",), "ok")
def _array_int64(env):
    x = _array.array("q", [1, -2, 3])
    assert prism().sum(x) == 2
    assert prism().sum(_array.array("l", [5, 6])) == 11


@case("buffer:memoryview-cast-float", ("numpy",), "ok")
def _memoryview_cast(env):
    raw = bytearray(np.arange(8, dtype=np.float32).tobytes())
    assert prism().sum(memoryview(raw).cast("f")) == 28
    assert prism().sum(memoryview(bytes(raw)).cast("f")) == 28  # read-only: an input
    assert prism().sum(memoryview(raw).cast("f").cast("B").cast("f", (2, 4))) == 28


@case("buffer:zero-size", ("numpy",), "ok")
def _zero_size(env):
    assert prism().sum(memoryview(np.zeros(0, np.float32))) == 0
    assert prism().sum(np.zeros((3, 0, 2), np.float64)) == 0
    assert prism().add(np.zeros(0, np.float32), np.zeros(0, np.float32)).shape == (0,)


@case("buffer:zero-d", ("numpy",), "ok")
def _zero_d(env):
    assert prism().sum(np.float32(3)) == 3  # a NumPy scalar: a 0-d read-only buffer
    assert prism().sum(memoryview(np.array(2.5, np.float64))) == 2.5
    out = np.zeros((), np.float32)
    prism().add(np.array(1, np.float32), np.array(2, np.float32), out=out)
    assert out == 3


@case("buffer:float16", ("numpy",), "ok")
def _float16(env):
    x = np.arange(4, dtype=np.float16)
    np.testing.assert_array_equal(prism().add(memoryview(x), x), 2 * x)


@case("buffer:outs-cut-to-the-count", ("numpy",), "ok")
def _outs_cut(env):
    """Without count=, a selection returns its outputs cut to the count: views of any buffer out."""
    p = prism()
    values, flags = np.arange(6, dtype=np.float32), np.array([1, 0, 1, 0, 0, 1], bool)
    for out in (memoryview(np.zeros(6, np.float32)), _array.array("f", [0] * 6), (ctypes.c_float * 6)()):
        np.testing.assert_array_equal(p.compact(values, flags, out=out), [0, 2, 5])
    np.testing.assert_array_equal(p.unique(np.array([1, 1, 2], np.int32), out=_array.array("i", [0] * 3)), [1, 2])
    np.testing.assert_array_equal(p.union1d(np.array([1, 3], np.int32), np.array([2, 3], np.int32),
                                            out=memoryview(bytearray(16)).cast("i")), [1, 2, 3])
    runs, counts = p.run_length_encode(np.array([4, 4, 7], np.int64), _array.array("q", [0] * 3),
                                       memoryview(np.zeros(3, np.int64)))
    np.testing.assert_array_equal(runs, [4, 7])
    np.testing.assert_array_equal(counts, [2, 1])


@case("dlpack:capsule-out-without-count", ("numpy",), "refused", match="count=")
def _capsule_out_cut(env):
    """A capsule out gives no view to cut to the count: refused before anything is written."""
    memory = np.full(6, 77, np.float32)
    try:
        prism().compact(np.arange(6, dtype=np.float32), np.ones(6, bool), out=memory.__dlpack__())
    finally:
        np.testing.assert_array_equal(memory, 77)


# Buffers with every field of their own, through PyMemoryView_FromBuffer (which copies what it is
# given without checking it against the memory).

class PyBuffer(ctypes.Structure):
    _fields_ = [("buf", ctypes.c_void_p), ("obj", ctypes.c_void_p), ("len", ctypes.c_ssize_t),
                ("itemsize", ctypes.c_ssize_t), ("readonly", ctypes.c_int), ("ndim", ctypes.c_int),
                ("format", ctypes.c_char_p), ("shape", ctypes.POINTER(ctypes.c_ssize_t)),
                ("strides", ctypes.POINTER(ctypes.c_ssize_t)), ("suboffsets", ctypes.POINTER(ctypes.c_ssize_t)),
                ("internal", ctypes.c_void_p)]


def raw_buffer(*, format=b"f", itemsize=4, shape=(16,), strides=None, length=None, readonly=0, offset=0,
               suboffsets=None, shape_null=False):
    """A memoryview of 16 float32 values (1..16, then zeros) that says what it is told, and the
    memory under it (only that is read here: NumPy itself may crash on such a view)."""
    memory = np.zeros(64, np.float32)
    memory[:16] = SIXTEEN
    sizes = ctypes.c_ssize_t * max(len(shape), 1)
    shape_array = sizes(*shape)
    strides_array = None if strides is None else (ctypes.c_ssize_t * max(len(strides), 1))(*strides)
    sub_array = None if suboffsets is None else (ctypes.c_ssize_t * len(suboffsets))(*suboffsets)
    count = 1
    for extent in shape:
        count *= extent
    view = PyBuffer(memory.ctypes.data + offset, None, count * itemsize if length is None else length, itemsize,
                    readonly, len(shape), format, None if shape_null else shape_array, strides_array, sub_array,
                    None)
    make = ctypes.pythonapi.PyMemoryView_FromBuffer
    make.restype, make.argtypes = ctypes.py_object, [ctypes.POINTER(PyBuffer)]
    result = make(ctypes.byref(view))
    KEEP.append((memory, format, shape_array, strides_array, sub_array))
    return result, memory


RAW_CASES = {
    "valid": (dict(), "ok", None),
    "format-null": (dict(format=None, itemsize=1, shape=(64,)), "ok", None),
    "format-native-prefix": (dict(format=b"@f"), "ok", None),
    "format-little-prefix": (dict(format=b"<f"), "ok", None),
    "format-standard-prefix": (dict(format=b"=f"), "ok", None),
    "format-network": (dict(format=b"!f"), "refused", "byte order"),
    "format-3f": (dict(format=b"3f", itemsize=12, shape=(4,)), "refused", "format"),
    "format-pad": (dict(format=b"x", itemsize=1, shape=(64,)), "refused", "format"),
    "format-zf": (dict(format=b"Zf", itemsize=8, shape=(8,)), "refused", "format"),
    "format-struct": (dict(format=b"T{f:x:f:y:}", itemsize=8, shape=(8,)), "refused", "format"),
    "format-empty": (dict(format=b""), "refused", "format"),
    "format-prefix-only": (dict(format=b"<"), "refused", "format"),
    "format-two-prefixes": (dict(format=b"<<f"), "refused", "format"),
    "format-standard-long": (dict(format=b"<l"), "ok", None),  # '<l' is 4 bytes: an int32
    "itemsize-disagrees": (dict(format=b"f", itemsize=8, shape=(8,)), "refused", "item size"),
    "itemsize-zero": (dict(format=b"f", itemsize=0, length=64), "refused", "item size"),
    "itemsize-negative": (dict(format=b"f", itemsize=-4, length=64), "refused", "item size"),
    "length-disagrees": (dict(length=60), "refused", "bytes"),
    "length-negative": (dict(length=-64), "refused", "bytes"),
    "extent-negative": (dict(shape=(-16,), length=64), "refused", "negative extent"),
    "extent-huge": (dict(shape=(2**62 + 3,), length=64), "refused", "too large"),
    "extent-lies": (dict(shape=(2**40,), length=64), "refused", "bytes"),
    "shape-2^32x2^32": (dict(shape=(2**32, 2**32), length=64), "refused", "too large"),
    "strides-negative": (dict(strides=(-4,)), "refused", "not contiguous"),
    "strides-zero": (dict(strides=(0,)), "refused", "not contiguous"),
    "strides-in-elements": (dict(strides=(1,)), "refused", "not contiguous"),
    "strides-on-extent-1": (dict(shape=(1, 16), strides=(2**62, 4)), "ok", None),
    "misaligned": (dict(offset=2, shape=(15,)), "refused", "misaligned"),
    "suboffsets": (dict(suboffsets=(0,), strides=(4,)), "refused", "buffer protocol|indirect"),
    "zero-dimensions": (dict(shape=()), "ok", None),
    "dimensions-64": (dict(shape=(16,) + (1,) * 63), "ok", None),
}


def _raw_case(keywords, target):
    def run(env):
        p = prism()
        x, memory = raw_buffer(**keywords)
        n = 1
        for extent in keywords.get("shape", (16,)):
            n *= extent
        format = keywords.get("format", b"f")
        floats = format in (b"f", b"@f", b"<f", b"=f") and keywords.get("itemsize", 4) == 4 and \
            "offset" not in keywords
        if target == "sum":
            got = p.sum(x) if format is not None else p.histogram(x, 2, 0, 256)
            if floats:
                assert got == memory[:n].sum(), (got, memory[:n].sum())
        elif format is not None:
            # Sizes past the memory are refused before any size is compared: a stands in for them.
            a = np.arange(100, 100 + (n if 0 <= n <= 64 else 16)).astype(np.int32 if format == b"<l" else np.float32)
            p.add(a, a, out=x)
            if floats:
                np.testing.assert_array_equal(memory[:n], 2 * a)
    return run


for _name, (_keywords, _expect, _match) in RAW_CASES.items():
    for _target in ("sum", "out"):
        case(f"buffer:raw-{_name}:{_target}", ("numpy",), _expect, _match)(_raw_case(_keywords, _target))


# ---- streams ------------------------------------------------------------------------------------------

class CudaStreamProtocol:
    def __init__(self, answer):
        self.answer = answer

    def __cuda_stream__(self):
        if isinstance(self.answer, Exception):
            raise self.answer
        return self.answer


STREAMS = {
    "12345": (12345, "refused", "not a CUDA stream"),
    "3": (3, "refused", "not a CUDA stream"),
    "65535": (65535, "refused", "not a CUDA stream"),
    "-1": (-1, "refused", "not a CUDA stream"),
    "-2^63": (-2**63, "refused", "not a CUDA stream"),
    "top-of-user-space": ("top", "refused", "not a CUDA stream"),  # 2^47 on x86-64
    "2^64": (2**64, "refused", "not a CUDA stream"),
    "2^64-1": (2**64 - 1, "refused", "not a CUDA stream"),
    "True": (True, "refused", "bool"),
    "False": (False, "refused", "bool"),
    "float": (1.5, "refused", "float"),
    "string": ("0", "refused", "str"),
    "object": (object(), "refused", "object"),
    "protocol-12345": (CudaStreamProtocol((0, 12345)), "refused", "not a CUDA stream"),
    "protocol-garbage": (CudaStreamProtocol("no"), "refused", "__cuda_stream__"),
    "protocol-raises": (CudaStreamProtocol(RuntimeError("gone")), "refused", "gone"),
    "protocol-triple": (CudaStreamProtocol((0, 0, 0)), "refused", "tuple of 3"),
    "protocol-single": (CudaStreamProtocol((0,)), "refused", "tuple of 1"),
    "protocol-list": (CudaStreamProtocol([0, 0]), "refused", "list"),
    "protocol-0": (CudaStreamProtocol((0, 0)), "ok", None),
    "0": (0, "ok", None),
    "1": (1, "ok", None),
    "2": (2, "either", "per-thread"),  # PyTorch's __dlpack__ refuses cudaStreamPerThread
}


def _stream_case(stream, target):
    def run(env):
        p = prism()
        stream_ = p._USER_SPACE if isinstance(stream, str) and stream == "top" else stream
        a = env.native(SIXTEEN)
        if target == "add":
            out = env.native(np.zeros(16, np.float32))
            p.add(a, a, out=out, stream=stream_)
            env.sync()
            np.testing.assert_array_equal(env.read(out), 2 * SIXTEEN)
        else:
            got = p.sum(a, stream=stream_)
            env.sync()
            got = got if isinstance(got, np.generic) else env.read(got)[()]
            assert got == 136
    return run


for _name, (_stream, _expect, _match) in STREAMS.items():
    for _target in ("add", "sum"):
        case(f"stream:{_name}:{_target}", KINDS, _expect, _match)(_stream_case(_stream, _target))


@case("stream:cuda-stream-interrupted", KINDS, "ok")
def _stream_interrupted(env):
    """A KeyboardInterrupt (or SystemExit) out of __cuda_stream__ is the program's, not a refused stream."""
    class Interrupted:
        def __cuda_stream__(self):
            raise KeyboardInterrupt

    x = env.native(SIXTEEN)
    try:
        prism().add(x, x, stream=Interrupted())
    except KeyboardInterrupt:
        return
    raise AssertionError("the KeyboardInterrupt did not reach the caller")


@case("stream:side-stream", ("torch", "cupy"), "ok")
def _side_stream(env):
    a = env.native(SIXTEEN)
    if env.name == "torch":
        stream = env.torch.cuda.Stream()
    else:
        stream = env.cupy.cuda.Stream(non_blocking=True)
    out = prism().add(a, a, stream=stream)
    stream.synchronize()
    np.testing.assert_array_equal(env.read(out), 2 * SIXTEEN)


# ---- histogram edges ----------------------------------------------------------------------------------

EDGES = {
    "decreasing": (np.array([0, 2, 1, 3], np.float32), "refused", "strictly increasing"),
    "all-decreasing": (np.array([3, 2, 1, 0], np.float32), "refused", "strictly increasing"),
    "equal": (np.array([0, 1, 1, 2], np.float32), "refused", "strictly increasing"),
    "nan-inside": (np.array([0, np.nan, 1], np.float32), "refused", "strictly increasing"),
    "nan-first": (np.array([np.nan, 0, 1], np.float32), "refused", "strictly increasing"),
    "nan-last": (np.array([0, 1, np.nan], np.float32), "refused", "strictly increasing"),
    "single": (np.array([0.5], np.float32), "refused", "two elements"),
    "none": (np.zeros(0, np.float32), "refused", "two elements"),
    "integers-decreasing": (np.array([0, 5, 4, 9], np.int64), "refused", "strictly increasing"),
    "increasing": (np.array([-1, 0.25, 0.5, 2], np.float32), "ok", None),
    "integers-increasing": (np.array([0, 3, 4, 9], np.int64), "ok", None),
}


def _edges_case(edges, expect):
    def run(env):
        integer = edges.dtype.kind == "i"
        samples = (np.arange(10, dtype=np.int32) if integer else np.linspace(-1, 1, 50).astype(np.float32))
        out = env.native(np.full(max(len(edges) - 1, 1), 77, np.int64))
        before = env.read(out)
        try:
            got = prism().histogram(env.native(samples), edges=env.native(edges), out=out)
        except (ValueError, TypeError):
            np.testing.assert_array_equal(env.read(out), before)  # refused before anything changed
            raise
        inside = samples[(samples >= edges[0]) & (samples < edges[-1])]
        expected = np.bincount(np.searchsorted(edges, inside, side="right") - 1, minlength=len(edges) - 1)
        np.testing.assert_array_equal(env.read(got), expected)
    return run


for _name, (_edges, _expect, _match) in EDGES.items():
    case(f"histogram:edges-{_name}", KINDS, _expect, _match)(_edges_case(_edges, _expect))


# count_if of bool and of the 1- and 2-byte integers counts by one-bin histograms (a fill where no
# value satisfies the comparison, the size less the equal ones for !=): its out is the compiled
# count_if's, one int64 or uint64 element, never taken as more bins or filled whatever it is.
def _count_out_case(dtype, compare, value, out):
    def run(env):
        counts = env.native(out)
        before = env.read(counts)
        try:
            prism().count_if(env.native(np.array([0, 1, 2, 3, 0, 1], dtype)), compare, value, out=counts)
        finally:
            np.testing.assert_array_equal(env.read(counts), before)  # a refusal changes nothing
    return run


for _dtype in ("int8", "uint8", "bool"):
    for _compare, _value in (("==", 0), ("!=", 0), ("<", 0)):
        for _out, _match in ((np.full(3, 77, np.int64), "3 elements, expected 1"),
                             (np.full(0, 77, np.int64), "0 elements, expected 1"),
                             (np.full(1, 77, np.float32), "float32, expected int64 or uint64")):
            case(f"count:{_dtype}{_compare}{_value}:out-{_out.dtype}-of-{_out.size}", KINDS, "refused", _match)(
                _count_out_case(_dtype, _compare, _value, _out))


@case("buffer:bool-bytes-past-1", ("numpy",), "ok")
def _bool_bytes(env):
    """A bool whose byte is neither 0 nor 1 (a uint8 array's .view(bool)) is True, as NumPy reads
    it: counted as compact and where select it."""
    p = prism()
    mask = np.frombuffer(bytes([0, 2, 255, 1, 0, 7]), np.bool_)
    compares = {"==": np.equal, "!=": np.not_equal, "<": np.less, "<=": np.less_equal, ">": np.greater,
                ">=": np.greater_equal}
    for compare, numpy_compare in compares.items():
        for value in (False, True):
            assert p.count_if(mask, compare, value) == np.count_nonzero(numpy_compare(mask, value)), (compare, value)
    assert p.count_nonzero(mask) == p.sum(mask) == len(p.compact(np.arange(6, dtype=np.float32), mask)) == 4
    assert p.any(mask) and not p.all(mask)


@case("dlpack:capsule-counted-once", ("numpy",), "ok")
def _capsule_counted(env):
    """count_nonzero, any, all and the sum of a mask read a capsule once (the first read consumes
    it), whichever family counts its type."""
    p = prism()
    for x in (np.array([0, 1, 2, -1], np.int8), np.array([True, False, True]), np.array([3, 0, 1], np.float32)):
        assert p.count_nonzero(x.__dlpack__()) == np.count_nonzero(x)
        assert p.count_if(x.__dlpack__(), "!=", 1) == np.count_nonzero(x != 1)
        assert p.any(x.__dlpack__()) and not p.all(x.__dlpack__())
    assert p.sum(np.array([True, False, True]).__dlpack__()) == 2


# ---- PyTorch's lazy views, CuPy's own odd arrays -----------------------------------------------------

def _torch_view_case(make, target):
    def run(env):
        torch, p = env.torch, prism()
        x = make(torch)
        if target == "sum":
            p.sum(x)
        elif target == "add":
            p.add(x, x, out=torch.empty_like(x.resolve_neg()))
        else:
            a = torch.ones_like(x.resolve_neg())
            p.add(a, a, out=x)
    return run


for _name, _make in (
        ("neg-view-cuda", lambda torch: torch._neg_view(torch.arange(16, dtype=torch.float32, device="cuda"))),
        ("neg-view-cpu", lambda torch: torch._neg_view(torch.arange(16, dtype=torch.float32))),
        ("conj-cuda", lambda torch: torch.ones(8, dtype=torch.complex64, device="cuda").conj()),
        ("conj-cpu", lambda torch: torch.ones(8, dtype=torch.complex64).conj()),
):
    for _target in ("sum", "add", "out"):
        # A complex sum is refused for its element type before the conjugate bit is read.
        case(f"torch:{_name}:{_target}", ("torch",), "refused", "resolve_neg|resolve_conj|complex64")(
            _torch_view_case(_make, _target))


@case("torch:resolved-neg-view", ("torch",), "ok")
def _torch_resolved(env):
    x = env.torch._neg_view(env.torch.arange(16, dtype=env.torch.float32, device="cuda")).resolve_neg()
    assert prism().sum(x).item() == -120


@case("torch:cpu-tensor", ("torch",), "ok")
def _torch_cpu(env):
    x = env.torch.arange(16, dtype=env.torch.float32)
    assert prism().sum(x).item() == 120
    np.testing.assert_array_equal(prism().add(x, x).numpy(), 2 * np.arange(16))


@case("cupy:misaligned", ("cupy",), "refused", match="misaligned")
def _cupy_misaligned(env):
    cupy = env.cupy
    memory = cupy.cuda.alloc(68)
    x = cupy.ndarray((16,), cupy.float32, memptr=memory + 2)
    prism().sum(x)


@case("cupy:misaligned-out", ("cupy",), "refused", match="misaligned")
def _cupy_misaligned_out(env):
    cupy = env.cupy
    memory = cupy.cuda.alloc(68)
    x = cupy.ndarray((16,), cupy.float32, memptr=memory + 2)
    a = cupy.ones(16, cupy.float32)
    prism().add(a, a, out=x)


@case("cupy:zero-size-and-0-d", ("cupy",), "ok")
def _cupy_small(env):
    cupy = env.cupy
    assert float(prism().sum(cupy.zeros(0, cupy.float32))) == 0
    assert float(prism().sum(cupy.full((), 5, cupy.float32))) == 5


# ---- the child ----------------------------------------------------------------------------------------

def child(kind):
    """Runs the named cases of one kind, one JSON line each, flushed as soon as it is known."""
    names = json.load(sys.stdin)
    env = ENVS[kind]()
    for name in names:
        line = {"case": name, "outcome": "ok"}
        try:
            CASES[name].run(env)
            env.sync()  # a kernel's fault belongs to its case
        except Exception as error:
            line = {"case": name, "outcome": "raised", "type": type(error).__name__, "message": str(error)}
            try:
                env.sync()
            except Exception as late:
                line["message"] += f" (and then the device failed: {type(late).__name__}: {late})"
                line["type"] = "DeviceFailure"
        print(json.dumps(line), flush=True)


# ---- the parent: children, results, tests ---------------------------------------------------------

TIMEOUT = 300


def _spawn(kind, names, timeout):
    """Runs names in one child: ({name: result}, how the child ended)."""
    environment = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p), PYTHONUNBUFFERED="1")
    command = [sys.executable, os.path.abspath(__file__), "--child", kind]
    try:
        done = subprocess.run(command, input=json.dumps(names), capture_output=True, text=True, timeout=timeout,
                              env=environment)
        stdout, stderr, ended = done.stdout, done.stderr, done.returncode
    except subprocess.TimeoutExpired as expired:
        stdout = expired.stdout.decode() if isinstance(expired.stdout, bytes) else (expired.stdout or "")
        stderr = expired.stderr.decode() if isinstance(expired.stderr, bytes) else (expired.stderr or "")
        ended = f"timed out after {timeout} s"
    results = {}
    for line in stdout.splitlines():
        if line.startswith("{"):
            result = json.loads(line)
            results[result["case"]] = result
    if ended != 0:
        how = f"killed by signal {-ended}" if isinstance(ended, int) and ended < 0 else f"exit status {ended}"
        ended = f"{how}; stderr: {stderr[-2000:]}"
    return results, ended


_RESULTS = {}   # kind -> {case: result}
SUMMARY = {}    # kind -> a line for the run's summary


def results(kind):
    if kind not in _RESULTS:
        names = names_for(kind)
        found, ended = _spawn(kind, names, TIMEOUT)
        children = 1
        missing = [n for n in names if n not in found]
        for name in missing if ended != 0 else []:  # one child each, to name the one that crashes
            alone, alone_ended = _spawn(kind, [name], 60)
            children += 1
            found[name] = alone.get(name) or {"case": name, "outcome": "crash", "message": alone_ended}
        crashed = sum(1 for r in found.values() if r["outcome"] == "crash")
        SUMMARY[kind] = (f"{kind}: {len(names)} hostile cases run in {children} child process(es)"
                         + (f", {crashed} crashed" if crashed else ""))
        _RESULTS[kind] = found
    return _RESULTS[kind]


def names_for(kind):
    return [name for name, c in CASES.items() if kind in c.kinds]


def judge(c, result):
    outcome = result["outcome"]
    if outcome == "crash":
        pytest.fail(f"{c.name} crashed the process: {result['message']}")
    if outcome == "ok":
        assert c.expect in ("ok", "either"), f"{c.name}: accepted, but it must be refused"
        return
    kind, message = result["type"], result["message"]
    assert kind != "AssertionError", f"{c.name}: a wrong answer: {message}"
    assert kind in REFUSALS + c.allow, f"{c.name}: {kind}: {message} (not a clear refusal)"
    assert message.strip(), f"{c.name}: {kind} without a message"
    assert c.expect != "ok", f"{c.name}: refused, but it must work: {kind}: {message}"
    if c.match:
        assert re.search(c.match, message), f"{c.name}: refused for another reason: {kind}: {message}"


@pytest.mark.parametrize("kind,name", [pytest.param(k, n, id=f"{k}:{n}") for k in KINDS for n in names_for(k)])
def test_hostile(kind, name, request):
    if kind != "numpy":
        try:
            request.getfixturevalue(kind)  # conftest's: skips where the kind cannot run
        except pytest.skip.Exception as skipped:
            SUMMARY.setdefault(kind, f"{kind}: {len(names_for(kind))} hostile cases prepared, skipped ({skipped})")
            raise
    judge(CASES[name], results(kind)[name])


def summary_lines():
    return [f"hostile inputs: {SUMMARY[k]}" for k in KINDS if k in SUMMARY]


if __name__ == "__main__" and len(sys.argv) == 3 and sys.argv[1] == "--child":
    child(sys.argv[2])
