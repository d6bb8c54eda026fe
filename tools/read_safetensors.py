#!/usr/bin/env python3
"""read_safetensors.py — open a safetensors file with nothing but Python's standard library and numpy.

This is how little code it takes to read an attnlab checkpoint outside attnlab. No torch and no safetensors
package are needed. The format (described in src/tensor/safetensors.h) is:

    8 bytes     N, the header length, unsigned 64-bit little-endian
    N bytes     JSON: {"name": {"dtype": "F32", "shape": [..], "data_offsets": [begin, end]}, ...,
                       "__metadata__": {"key": "value"}}
    the rest    the data buffer; each tensor's bytes are data[begin:end], row-major, little-endian

Usage:
    read_safetensors.py FILE                     print each tensor's name, dtype, shape and first values
    read_safetensors.py --expect-example FILE    also check the file tests/tensor/write_example_safetensors.cpp
                                                 writes; exit 1 if anything differs
"""
import argparse
import json
import struct
import sys

import numpy as np

# safetensors dtype -> numpy dtype ("<" means little-endian). attnlab writes only F32 and F64.
NUMPY_DTYPES = {
    "F64": "<f8", "F32": "<f4", "F16": "<f2",
    "I64": "<i8", "I32": "<i4", "I16": "<i2", "I8": "i1",
    "U64": "<u8", "U32": "<u4", "U16": "<u2", "U8": "u1", "BOOL": "?",
}

# What tests/tensor/write_example_safetensors.cpp writes. Change both files together.
EXAMPLE_TENSORS = [  # in file order: (name, shape, values in row-major order)
    ("encoder.norm.bias", [4], [0.5, -0.25, 2, 8]),
    ("embedding.weight", [3, 4], [(k - 6) / 4 for k in range(12)]),
    ("attention.pattern", [2, 1, 2, 3], [k + 1 for k in range(12)]),
]
EXAMPLE_METADATA = {"format": "attnlab example", "step": "42"}


def read_safetensors(path):
    """Returns ([(name, dtype, numpy array)] in the order of the data, metadata dict)."""
    with open(path, "rb") as f:
        blob = f.read()
    (header_length,) = struct.unpack("<Q", blob[:8])
    header = json.loads(blob[8:8 + header_length].decode("utf-8"))
    data = memoryview(blob)[8 + header_length:]

    metadata = header.pop("__metadata__", {})
    tensors = []
    for name, entry in sorted(header.items(), key=lambda item: item[1]["data_offsets"]):
        begin, end = entry["data_offsets"]
        if entry["dtype"] not in NUMPY_DTYPES:  # BF16, F8…: numpy has no such type
            tensors.append((name, entry["dtype"], None))
            continue
        values = np.frombuffer(data[begin:end], dtype=NUMPY_DTYPES[entry["dtype"]])
        tensors.append((name, entry["dtype"], values.reshape(entry["shape"])))
    return tensors, metadata


def print_contents(tensors, metadata, first=6):
    for name, dtype, array in tensors:
        if array is None:
            print(f"{name}  {dtype}  (numpy cannot represent {dtype})")
            continue
        values = ", ".join(f"{v:g}" for v in array.reshape(-1)[:first])
        more = ", …" if array.size > first else ""
        print(f"{name}  {dtype}  shape {list(array.shape)}  [{values}{more}]")
    for key, value in metadata.items():
        print(f"metadata  {key} = {value!r}")


def differences_from_example(tensors, metadata):
    """Everything in which the file differs from what write_example_safetensors writes (empty if nothing)."""
    problems = []
    names = [name for name, _, _ in tensors]
    expected_names = [name for name, _, _ in EXAMPLE_TENSORS]
    if names != expected_names:
        problems.append(f"tensor names {names}, expected {expected_names} in that order")
    for (name, dtype, array), (_, shape, values) in zip(tensors, EXAMPLE_TENSORS):
        if dtype != "F32":
            problems.append(f"{name}: dtype {dtype}, expected F32")
        elif list(array.shape) != shape:
            problems.append(f"{name}: shape {list(array.shape)}, expected {shape}")
        elif not np.array_equal(array.reshape(-1), np.array(values, dtype=np.float32)):
            problems.append(f"{name}: values {array.reshape(-1).tolist()}, expected {values}")
    if metadata != EXAMPLE_METADATA:
        problems.append(f"metadata {metadata}, expected {EXAMPLE_METADATA}")
    return problems


def main():
    parser = argparse.ArgumentParser(description="Print the tensors and metadata of a safetensors file.")
    parser.add_argument("file")
    parser.add_argument("--expect-example", action="store_true",
                        help="check the file written by tests/tensor/write_example_safetensors.cpp; exit 1 on a mismatch")
    args = parser.parse_args()

    tensors, metadata = read_safetensors(args.file)
    print_contents(tensors, metadata)
    if args.expect_example:
        problems = differences_from_example(tensors, metadata)
        for problem in problems:
            print(f"MISMATCH: {problem}", file=sys.stderr)
        if problems:
            return 1
        print("ok: numpy reads exactly what attnlab wrote")
    return 0


if __name__ == "__main__":
    sys.exit(main())
