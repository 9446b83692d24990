#!/usr/bin/env python3
# Runs llama.cpp's own tokenizer suite through `quanta tokenize`: the models/ggml-vocab-*.gguf
# files of a llama.cpp source tree with their .inp (cases separated by "\n__ggml_vocab_test__\n")
# and .out (one line of ids per case), read as its tests/test-tokenizer-0.cpp reads them
# (add_special and parse_special off). The files are not in this repository; point the script at
# a llama.cpp checkout, e.g. the llama-cpp-python sdist's vendor/llama.cpp.
# Vocabularies without .inp/.out are then tokenized on every suite input: compared with
# llama.cpp's llama-tokenize when --llama-tokenize is given, otherwise only checked to load and run.
#   scripts/llama-tokenizer-suite.py LLAMA_CPP_DIR [QUANTA_BINARY] [--llama-tokenize BIN]
import glob, json, os, subprocess, sys

args = [a for a in sys.argv[1:]]
LT = None
if "--llama-tokenize" in args:
    i = args.index("--llama-tokenize"); LT = args[i + 1]; del args[i:i + 2]
V = os.path.join(args[0], "models")
Q = args[1] if len(args) > 1 else os.path.join(os.path.dirname(__file__), "..", ".build", "release", "quanta")
SEP = "\n__ggml_vocab_test__\n"


def split_inp(raw):
    # mimic the C++ split: cases separated by SEP; a trailing separator ends the last case
    sinp = []; pos = 0
    while pos < len(raw):
        nxt = raw.find(SEP, pos)
        if nxt < 0: sinp.append(raw[pos:]); break
        sinp.append(raw[pos:nxt]); pos = nxt + len(SEP)
    return sinp


def quanta_ids(gguf, s):
    r = subprocess.run([Q, "tokenize", "-m", gguf], input=s.encode(), capture_output=True)
    if r.returncode != 0:
        return None, r.stderr.decode().strip()[:150]
    return json.loads(r.stdout.decode().splitlines()[0]), None


total_pass = total = 0
all_inputs = []
for inp in sorted(glob.glob(V + "/ggml-vocab-*.gguf.inp")):
    gguf = inp[:-4]; name = os.path.basename(gguf)
    sinp = split_inp(open(inp, encoding="utf-8").read())
    all_inputs += [s for s in sinp if s not in all_inputs]
    sout = [l.strip() for l in open(gguf + ".out", encoding="utf-8").read().split("\n")]
    sout = sout[:len(sinp)]
    ok = 0; err = None; first_fail = None
    for s, o in zip(sinp, sout):
        want = [int(t) for t in o.split()] if o else []
        got, err = quanta_ids(gguf, s)
        if err: break
        if got == want: ok += 1
        elif first_fail is None: first_fail = (s[:40], want[:8], got[:8])
    total += len(sinp); total_pass += ok
    print(f"{name}: {ok}/{len(sinp)}" + (f"  error: {err}" if err else "") + (f"  first mismatch {first_fail!r}" if first_fail and not err else ""), flush=True)
print(f"all: {total_pass}/{total}")

extra = [g for g in sorted(glob.glob(V + "/ggml-vocab-*.gguf")) if not os.path.exists(g + ".inp")]
for gguf in extra:
    name = os.path.basename(gguf)
    ok = 0; err = None; first_fail = None
    for s in all_inputs:
        got, err = quanta_ids(gguf, s)
        if err: break
        if LT is None: ok += 1; continue
        r = subprocess.run([LT, "-m", gguf, "--stdin", "--ids", "--no-escape", "--log-disable", "--no-bos",
                            "--no-parse-special"], input=s.encode(), capture_output=True, check=True)
        want = json.loads(r.stdout.decode().strip().splitlines()[-1])
        if got == want: ok += 1
        elif first_fail is None: first_fail = (s[:40], want[:8], got[:8])
    what = "equal to llama-tokenize" if LT else "ran"
    print(f"{name} (no .out): {ok}/{len(all_inputs)} {what}" + (f"  error: {err}" if err else "") + (f"  first mismatch {first_fail!r}" if first_fail and not err else ""), flush=True)
