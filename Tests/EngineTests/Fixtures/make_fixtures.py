#!/usr/bin/env python3
"""Regenerates the dequantization fixtures from the real models and the `gguf` package.

    pip install gguf==0.19.0 numpy
    python3 Tests/EngineTests/Fixtures/make_fixtures.py Models/

For every tensor type present in the two real models it takes the first rows of one real tensor;
for the types our models do not contain (Q4_0, Q5_1, Q3_K, Q5_K, F16, BF16, IQ4_NL, IQ4_XS) it builds random blocks
with finite fp16 scales. Each case is written as `<name>.q` (raw GGUF bytes) and `<name>.f32`
(what `gguf.quants.dequantize` returns, little-endian float32), indexed in `dequant.json`.
The Swift tests compare our C reference dequantizers against these bit for bit.
"""
import json
import os
import sys

import numpy as np
from gguf import GGUFReader, GGMLQuantizationType as T
from gguf.constants import GGML_QUANT_SIZES
from gguf.quants import dequantize

HERE = os.path.dirname(os.path.abspath(__file__))
MODELS = {"smollm": "SmolLM2-135M-Instruct.Q4_1.gguf", "gemma": "gemma-3-270m-q4_k_m.gguf"}
ROWS = 3


def write_case(index, name, qtype, raw, row_length, rows, source):
    expected = dequantize(raw.reshape(rows, -1), qtype).astype("<f4")
    assert expected.shape == (rows, row_length)
    raw.tofile(os.path.join(HERE, name + ".q"))
    expected.tofile(os.path.join(HERE, name + ".f32"))
    index.append({"name": name, "type": int(qtype), "row_length": row_length, "rows": rows, "source": source})


def real_cases(index, models_dir):
    for key, file in MODELS.items():
        reader = GGUFReader(os.path.join(models_dir, file))
        seen = set()
        for t in reader.tensors:
            qtype = T(t.tensor_type)
            if qtype in seen or len(t.shape) < 2:
                continue
            seen.add(qtype)
            row_length = int(t.shape[0])
            block, size = GGML_QUANT_SIZES[qtype]
            row_bytes = row_length // block * size
            raw = np.frombuffer(t.data.tobytes()[: ROWS * row_bytes], dtype=np.uint8).copy()
            write_case(index, f"{key}-{qtype.name.lower()}", qtype, raw, row_length, ROWS, f"{file}:{t.name}")


def finite_fp16(rng, n):
    """Random fp16 bit patterns that are finite (no inf/NaN), subnormals included."""
    bits = rng.integers(0, 1 << 16, size=n, dtype=np.uint16)
    return np.where((bits & 0x7C00) == 0x7C00, bits & 0x83FF, bits).astype(np.uint16)


def synthetic_cases(index):
    rng = np.random.default_rng(1234)
    row_length = 512
    for qtype in (T.Q4_0, T.Q5_1, T.Q5_K, T.F16, T.BF16, T.IQ4_NL, T.IQ4_XS, T.Q3_K):
        block, size = GGML_QUANT_SIZES[qtype]
        nblocks = ROWS * row_length // block
        raw = rng.integers(0, 256, size=(nblocks, size), dtype=np.uint8)
        if qtype == T.F16:
            raw = finite_fp16(rng, nblocks).view(np.uint8).reshape(nblocks, size)
        elif qtype == T.BF16:
            bits = rng.integers(0, 1 << 16, size=nblocks, dtype=np.uint16)
            bits = np.where((bits & 0x7F80) == 0x7F80, bits & 0x807F, bits).astype(np.uint16)
            raw = bits.view(np.uint8).reshape(nblocks, size)
        elif qtype == T.Q3_K:
            # Q3_K's one fp16 scale d ends the block.
            raw[:, size - 2 :] = finite_fp16(rng, nblocks).view(np.uint8).reshape(nblocks, 2)
        else:
            # fp16 scales (d, and m/dmin where present) lead each of these blocks.
            nscales = 1 if qtype in (T.Q4_0, T.IQ4_NL, T.IQ4_XS) else 2
            raw[:, : 2 * nscales] = finite_fp16(rng, nblocks * nscales).view(np.uint8).reshape(nblocks, 2 * nscales)
        write_case(index, f"synthetic-{qtype.name.lower()}", qtype, raw.reshape(-1), row_length, ROWS, "random blocks")


def main():
    models_dir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "../../../Models")
    for f in os.listdir(HERE):
        if f.endswith((".q", ".f32")):
            os.remove(os.path.join(HERE, f))
    index = []
    real_cases(index, models_dir)
    synthetic_cases(index)
    with open(os.path.join(HERE, "dequant.json"), "w") as f:
        json.dump(index, f, indent=1)
        f.write("\n")
    print(f"{len(index)} cases")


if __name__ == "__main__":
    main()
