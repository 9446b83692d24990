#!/usr/bin/env python3
# Runs llama.cpp's own tokenizer suite through `quanta tokenize`: the models/ggml-vocab-*.gguf
# files of a llama.cpp source tree with their .inp (cases separated by "\n__ggml_vocab_test__\n")
# and .out (one line of ids per case), read as its tests/test-tokenizer-0.cpp reads them
# (add_special and parse_special off). The files are not in this repository; point the script at
# a llama.cpp checkout, e.g. the llama-cpp-python sdist's vendor/llama.cpp.
#   scripts/llama-tokenizer-suite.py LLAMA_CPP_DIR [QUANTA_BINARY]
import glob, json, os, subprocess, sys
V = os.path.join(sys.argv[1], "models")
Q = sys.argv[2] if len(sys.argv) > 2 else os.path.join(os.path.dirname(__file__), "..", ".build", "release", "quanta")
total_pass = total = 0
for inp in sorted(glob.glob(V + "/ggml-vocab-*.gguf.inp")):
    gguf = inp[:-4]; name = os.path.basename(gguf)
    raw = open(inp, encoding="utf-8").read()
    # the file ends with a trailing separator line? mimic the C++ split
    sep = "\n__ggml_vocab_test__\n"; sinp = []; pos = 0
    while pos < len(raw):
        nxt = raw.find(sep, pos)
        if nxt < 0: sinp.append(raw[pos:]); break
        sinp.append(raw[pos:nxt]); pos = nxt + len(sep)
    sout = [l.strip() for l in open(gguf + ".out", encoding="utf-8").read().split("\n")]
    sout = sout[:len(sinp)]
    ok = 0; err = None; first_fail = None
    for s, o in zip(sinp, sout):
        want = [int(t) for t in o.split()] if o else []
        r = subprocess.run([Q, "tokenize", "-m", gguf], input=s.encode(), capture_output=True)
        if r.returncode != 0:
            err = r.stderr.decode().strip()[:150]; break
        got = json.loads(r.stdout.decode().splitlines()[0])
        if got == want: ok += 1
        elif first_fail is None: first_fail = (s[:40], want[:8], got[:8])
    total += len(sinp); total_pass += ok
    print(f"{name}: {ok}/{len(sinp)}" + (f"  error: {err}" if err else "") + (f"  first mismatch {first_fail!r}" if first_fail and not err else ""), flush=True)
print(f"all: {total_pass}/{total}")
