#!/usr/bin/env python3
"""Regenerates tokenizer-hostile.jsonl: hostile test strings with llama.cpp's token ids.

usage: make_corpus.py LLAMA_TOKENIZE [--llama-src DIR] [--models DIR] [--out FILE] [--slow]
       make_corpus.py LLAMA_TOKENIZE --pre-variants   (tokenizer-pretokenizers.jsonl)
Writes tokenizer-hostile.jsonl and (with the helper) tokenizer-vocab-facts.json: llama.cpp's BOS/EOS ids,
add-BOS/EOS flags, and the ids llama_vocab_is_eog / llama_vocab_is_control accept, per model.

LLAMA_TOKENIZE is the `llama-tokenize` binary of an unmodified llama.cpp build (the reference
data used commit 0c1e57098bba43ac29e6e3b677cdceebdd22334f, vendored in llama-cpp-python 0.3.36).
Modes, as in the shared reference data's README:
  plain:   --no-bos --no-parse-special   (add_special = false, parse_special = false)
  special: (defaults)                    (add_special = model default, parse_special = true)
Each string goes to llama-tokenize's stdin as raw UTF-8 with no trailing newline.

llama-tokenize loads the vocabulary once per call (seconds for Gemma's 262k tokens), so by
default the script compiles a tiny helper against the same build's libllama (public llama.h only:
llama_model_load_from_file with vocab_only, llama_tokenize) that loads each vocabulary once, and
cross-checks the helper against llama-tokenize itself on a sample of strings before writing.
`--slow` uses llama-tokenize for every string instead. Output lines have the shape of
tokenizer-dev.jsonl (the *_decoded fields come from llama_detokenize, so only with the helper). Nothing from llama.cpp enters the repository.
"""
import argparse
import json
import os
import struct
import subprocess
import sys
import tempfile

MODELS = {
    "smollm": "SmolLM2-135M-Instruct.Q4_1.gguf",
    "gemma": "gemma-3-270m-q4_k_m.gguf",
}


def hostile_strings():
    s = []
    # Whitespace: every small run length of each kind, mixtures, leading/trailing.
    for n in list(range(1, 34)) + [40, 64, 100]:
        s.append(" " * n)
    for n in [1, 2, 3, 4, 8, 16, 31, 32, 33]:
        s.append("\t" * n)
        s.append("\n" * n)
    for n in [1, 2, 3, 5]:
        s.append("\r\n" * n)
    s += ["\r", "\r\r\n", "\n\r", " \n", "\n ", " \r\n ", "  \n  \n", "\t \n \t", "a \n b", "a\r\nb\r\n",
          "x  ", "x   y", "   leading", "trailing   ", " \tmixed\t ", "end\n", "\n\nstart", "word \n\n word",
          "\u00a0", "a\u00a0b", "\u00a0\u00a0x", "\u3000全角\u3000", "\u2028", "\u2029", "\u0085", "a\u0085b",
          "\u2003em\u2009thin\u200aHair", "\u000b\u000c", "\u001c\u001d\u001e\u001f", "a\u001fb"]
    # Contractions.
    s += ["I'm you're he's we've they'll I'd don't can't", "I'M YOU'RE HE'S WE'VE THEY'LL I'D",
          "'s 't 're 've 'm 'll 'd", "''s", "'", "''", "rock'n'roll y'all o'clock", "it\u2019s curly\u2019s",
          "'S'T'RE", "dogs' toys", " 's", "x'll've"]
    # Numbers of every length and shape.
    digits = "12345678901234567890123456789012345678901234567890"
    for n in range(1, 41):
        s.append(digits[:n])
    s += ["3.14159", "-42", "+7", "1,000,000", "1.000.000,50", "1e-10", "6.02e23", "0x1F", "0b1010", "007",
          "10%", "$1,234.56", "€5", "12:30:45", "2024-02-29", "v1.2.3", "192.168.0.1", "a1b2c3", "x10 y200 z3000",
          "\u0661\u0662\u0663", "\u0967\u0968\u0969", "\u00bd \u00b2 \u2163 \u2460", "\uff11\uff12\uff13",
          "1st 2nd 3rd 4th", "1 2  3   4"]
    # Code.
    s += [
        "def f(x):\n    return x ** 2  # square\n",
        "for (int i = 0; i < n; ++i) { sum += a[i]; }",
        "fn main() { let v: Vec<u8> = vec![1, 2, 3]; println!(\"{:?}\", v); }",
        "func add(a, b int) int {\n\treturn a + b\n}",
        "const x = async () => { await fetch(`/api?q=${q}`); };",
        "<div class=\"a\"><span>hi</span></div>",
        "<table><tr><td>1</td><td>2</td></tr></table>",
        "SELECT * FROM t WHERE a >= 10 AND b <> 'x';",
        "#!/bin/bash\nfor f in *.txt; do echo \"$f\"; done",
        "{\"key\": [1, 2.5, null, true], \"nested\": {\"a\": \"b\"}}",
        "\\begin{equation} E = mc^2 \\end{equation}",
        "| a | b |\n|---|---|\n| 1 | 2 |",
        "    indented four\n        eight\n\t\ttabs",
        "x+=1;y-=2;z*=3;w/=4;v%=5;u**=6;t//=7",
        "^[a-zA-Z0-9._%+-]+@[a-zA-Z0-9.-]+\\.[a-zA-Z]{2,}$",
        "C:\\Users\\me\\file.txt",
        "#include <stdio.h>\nint main(void){printf(\"%d\\n\",42);}",
    ]
    # URLs and e-mail.
    s += ["https://example.com/path?query=1&b=2#frag", "http://[::1]:8080/", "mailto:someone@example.org",
          "https://ja.wikipedia.org/wiki/\u6771\u4eac", "ftp://user:pw@host:21/dir/file.tar.gz"]
    # Emoji.
    s += ["\U0001F600", "\U0001F600" * 3, "\U0001F468\u200d\U0001F469\u200d\U0001F467\u200d\U0001F466",
          "\U0001F1FA\U0001F1F8\U0001F1EF\U0001F1F5", "\U0001F1E6", "\U0001F3F3\ufe0f\u200d\U0001F308",
          "1\ufe0f\u20e3", "#\ufe0f\u20e3", "\U0001F44D\U0001F3FD", "\U0001F426\u200d\U0001F525", "\U0001FAE8",
          "\U0001F9D1\u200d\U0001F4BB codes", "I \u2764\ufe0f NY", "\u263a\ufe0e text style"]
    # Combining marks and scripts.
    s += ["e\u0301", "\u00e9", "a\u0300\u0301\u0302\u0303", "Z\u0334\u0321\u0327\u031b\u031b\u0316\u0317",
          "\u0915\u094d\u0937\u0924\u094d\u0930\u093f\u092f", "\u0928\u092e\u0938\u094d\u0924\u0947 \u0926\u0941\u0928\u093f\u092f\u093e",
          "Vi\u1ec7t Nam", "\u0e2a\u0e27\u0e31\u0e2a\u0e14\u0e35", "\u4f60\u597d\uff0c\u4e16\u754c\uff01",
          "\u65e5\u672c\u8a9e\u306e\u30c6\u30ad\u30b9\u30c8", "\uff8a\uff9d\uff76\uff78", "\ud55c\uad6d\uc5b4 \ud14d\uc2a4\ud2b8",
          "\u1100\u1161\u11a8", "\u0645\u064e\u0631\u0652\u062d\u064e\u0628\u064b\u0627", "\u0627\u0644\u0639\u0631\u0628\u064a\u0629 123",
          "\u05e9\u05b8\u05c1\u05dc\u05d5\u05b9\u05dd", "\u0ba4\u0bae\u0bbf\u0bb4\u0bcd", "\u1781\u17d2\u1798\u17c2\u179a",
          "\u0f56\u0f7c\u0f51\u0f0b", "\u1828\u1822\u1829\u182d", "\u12a0\u121b\u122d\u129b", "\u13e3\u13b3\u13a9",
          "\U0001d400\U0001d401\U0001d402", "\U0001d518\U0001d52b\U0001d526", "\uff21\uff22\uff23",
          "\u0130stanbul \u0131", "Stra\u00dfe", "\ufb01ne \ufb02y", "\u212a\u212b\u2126", "\u01c5\u01c8",
          "\u0391\u03b8\u03ae\u03bd\u03b1", "\u041c\u043e\u0441\u043a\u0432\u0430", "hello\u4e16\u754c123abc"]
    # Zero-width, format and other invisible characters.
    s += ["\u200b", "a\u200bb", "\u200c\u200d", "\u2060", "\ufeffabc", "soft\u00adhyphen", "\u180e",
          "x\ufe0f", "\U000e0067\U000e0062", "\u202etxet\u202c", "\u2061\u2062\u2063"]
    # Unassigned, private use, noncharacters, controls.
    s += ["\U000e0080", "\ue000", "\U000f0000", "\uffff", "\ufffe", "\U0010ffff", "\u0378", "\x01\x02",
          "\x7f", "\x1b[31mred\x1b[0m", "a\x00b"]
    # Recent Unicode (checks our Unicode tables against llama.cpp's).
    s += ["\U0001cc00\U0001cc01", "\U00010d40\U00010d41", "\U0001e5d0", "\U00011f00\U00011f02", "\u0c5d\u0cdd",
          "\U0001faf8", "\U0001fa89"]
    # Very long words and runs.
    s += ["a" * 1000, "ab" * 1000, "abc" * 333, "supercalifragilisticexpialidocious" * 20, "\U0001F600" * 100,
          "\u4e00" * 300, "x" * 5000, "." * 200, "-" * 100, "=" * 64, "_" * 50, "0" * 100, "Aa1!" * 100,
          "pneumonoultramicroscopicsilicovolcanoconiosis", "Llanfairpwllgwyngyllgogerychwyrndrobwllllantysiliogogogoch"]
    # Special-token text, exact and near misses, for both chat formats.
    s += ["<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n", "<|im_start|><|im_start|>",
          "<|im_end|", "|im_start|>", "<<|im_end|>>", "<|endoftext|>", "<reponame>x<file_sep>",
          "<jupyter_code>print(1)<jupyter_output>", "<start_of_turn>user\nhi<end_of_turn>\n<start_of_turn>model\n",
          "<start_of_turn><end_of_turn>", "<bos>", "<eos>", "<pad>", "<unk>", "<mask>", "<bos><eos>",
          "<<bos>>", "<bos", "bos>", "< bos>", "[multimodal]", "<unused0>", "<unused99>", "<unused6241>",
          "<start_of_image>", "<end_of_image>", "<0x41>", "<0x0A>", "<0xZZ>", "<b>bold</b> <i>it</i>",
          "</s><s>", "<h1>Title</h1>\n<p>para</p>", "text<start_of_turn>", "<end_of_turn>text",
          " <start_of_turn> ", "\n<bos>\n", "<|im_start|>system\n<start_of_turn>mixed<|im_end|>"]
    # A longer mixed paragraph.
    s.append(
        "The quick brown fox (\u00e9l\u00e8ve) jumps over 13 lazy dogs \u2014 twice! \u00bfQu\u00e9? "
        "\u0414\u0430. \u4f60\u597d. \U0001F98A\n\n"
        "  - item 1: 3.5kg @ $12.99\n  - item 2: \"quoted\" & 'single'\n\t* nested\u2026\r\n"
        "Done.   " * 5)
    return s


def tokenize(tool, model, text, special):
    cmd = [tool, "-m", model, "--stdin", "--ids", "--log-disable", "--no-escape"]
    if not special:
        cmd += ["--no-bos", "--no-parse-special"]
    out = subprocess.run(cmd, input=text.encode("utf-8"), capture_output=True, check=True).stdout
    line = [l for l in out.decode("utf-8").splitlines() if l.startswith("[")][-1]
    return json.loads(line)


# Reads (u32 length, bytes) records from stdin; for each prints the plain ids (JSON array) and
# their llama_detokenize text (hex), then the same for the special mode.
HELPER = r"""
#include "llama.h"
#include <cstdio>
#include <cstdint>
#include <string>
#include <vector>
static void dump(const llama_vocab * v, const std::string & t, bool add, bool parse) {
    std::vector<llama_token> ids(t.size() + 16);
    int n = llama_tokenize(v, t.data(), (int32_t) t.size(), ids.data(), (int32_t) ids.size(), add, parse);
    if (n < 0) { ids.resize(-n); n = llama_tokenize(v, t.data(), (int32_t) t.size(), ids.data(), (int32_t) ids.size(), add, parse); }
    printf("[");
    for (int i = 0; i < n; i++) printf(i ? ", %d" : "%d", ids[i]);
    printf("]\n");
    // llama_detokenize(remove_special = false, unparse_special = parse), as hex bytes.
    std::vector<char> text(t.size() * 4 + 256);
    int m = llama_detokenize(v, ids.data(), n, text.data(), (int32_t) text.size(), false, parse);
    if (m < 0) { text.resize(-m); m = llama_detokenize(v, ids.data(), n, text.data(), (int32_t) text.size(), false, parse); }
    for (int i = 0; i < m; i++) printf("%02x", (unsigned char) text[i]);
    printf("\n");
}
int main(int argc, char ** argv) {
    llama_log_set([](ggml_log_level, const char *, void *) {}, nullptr);
    llama_backend_init();
    llama_model_params p = llama_model_default_params();
    p.vocab_only = true;
    llama_model * m = llama_model_load_from_file(argv[1], p);
    if (!m) return 1;
    const llama_vocab * v = llama_model_get_vocab(m);
    if (argc > 2) {  // --facts: special ids, add-BOS/EOS, end-of-generation and control ids
        int n = llama_vocab_n_tokens(v);
        printf("{\"n_vocab\": %d, \"bos\": %d, \"eos\": %d, \"add_bos\": %s, \"add_eos\": %s, \"eog\": [",
               n, llama_vocab_bos(v), llama_vocab_eos(v), llama_vocab_get_add_bos(v) ? "true" : "false",
               llama_vocab_get_add_eos(v) ? "true" : "false");
        bool first = true;
        for (int i = 0; i < n; i++) if (llama_vocab_is_eog(v, i)) { printf(first ? "%d" : ", %d", i); first = false; }
        printf("], \"control\": [");
        first = true;
        for (int i = 0; i < n; i++) if (llama_vocab_is_control(v, i)) { printf(first ? "%d" : ", %d", i); first = false; }
        printf("]}\n");
        return 0;
    }
    uint32_t len;
    while (fread(&len, 4, 1, stdin) == 1) {
        std::string t(len, '\0');
        if (len && fread(&t[0], 1, len, stdin) != len) return 2;
        dump(v, t, false, false);
        dump(v, t, true, true);
    }
    llama_model_free(m);
    return 0;
}
"""


def build_helper(llama_src, build_dir, workdir):
    src = os.path.join(workdir, "tok_helper.cpp")
    exe = os.path.join(workdir, "tok_helper")
    with open(src, "w") as f:
        f.write(HELPER)
    lib = os.path.join(build_dir, "bin")
    subprocess.run(["g++", "-O1", "-std=c++17", src, "-o", exe, "-I", os.path.join(llama_src, "include"),
                    "-I", os.path.join(llama_src, "ggml", "include"), "-L", lib, "-lllama", "-lggml",
                    "-lggml-base", "-Wl,-rpath," + lib], check=True)
    return exe


def tokenize_all(helper, model, texts):
    payload = b"".join(struct.pack("<I", len(t.encode("utf-8"))) + t.encode("utf-8") for t in texts)
    out = subprocess.run([helper, model], input=payload, capture_output=True, check=True).stdout
    lines = out.decode("utf-8").split("\n")

    def text(hex_line):
        try:
            return bytes.fromhex(hex_line).decode("utf-8")
        except UnicodeDecodeError:
            return None  # not valid UTF-8, as in the reference README

    return [(json.loads(lines[4 * i]), json.loads(lines[4 * i + 2]), text(lines[4 * i + 1]), text(lines[4 * i + 3]))
            for i in range(len(texts))]


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("llama_tokenize")
    ap.add_argument("--llama-src", default="/work/llama.cpp-src")
    ap.add_argument("--models", default=os.path.join(here, "..", "..", "..", "Models"))
    ap.add_argument("--out", default=os.path.join(here, "tokenizer-hostile.jsonl"))
    ap.add_argument("--slow", action="store_true")
    ap.add_argument("--pre-variants", action="store_true",
                    help="instead: write tokenizer-pretokenizers.jsonl (see pre_variants)")
    args = ap.parse_args()
    if args.pre_variants:
        return pre_variants(args)
    texts = []
    for t in hostile_strings():
        if t not in texts:
            texts.append(t)
    results = {}
    with tempfile.TemporaryDirectory() as work:
        helper = None
        if not args.slow:
            build_dir = os.path.dirname(os.path.dirname(os.path.abspath(args.llama_tokenize)))
            helper = build_helper(args.llama_src, build_dir, work)
        for key, name in MODELS.items():
            path = os.path.join(args.models, name)
            if helper:
                results[key] = tokenize_all(helper, path, texts)
                # Cross-check the helper against llama-tokenize itself.
                for i in range(0, len(texts), max(1, len(texts) // 12)):
                    want = (tokenize(args.llama_tokenize, path, texts[i], False),
                            tokenize(args.llama_tokenize, path, texts[i], True))
                    if tuple(results[key][i][:2]) != want:
                        sys.exit(f"helper disagrees with llama-tokenize on {texts[i]!r} ({key})")
            else:
                results[key] = [(tokenize(args.llama_tokenize, path, t, False),
                                 tokenize(args.llama_tokenize, path, t, True), None, None) for t in texts]
        if helper:
            facts = {}
            for key, name in MODELS.items():
                out = subprocess.run([helper, os.path.join(args.models, name), "--facts"], capture_output=True,
                                     check=True).stdout
                facts[key] = json.loads(out)
            with open(os.path.join(os.path.dirname(args.out), "tokenizer-vocab-facts.json"), "w") as f:
                json.dump(facts, f)
    with open(args.out, "w", encoding="utf-8") as out:
        for i, text in enumerate(texts):
            record = {"text": text}
            for key in MODELS:
                plain, special, plain_decoded, special_decoded = results[key][i]
                record[key] = {"plain": plain, "special": special}
                if helper:
                    record[key].update({"plain_decoded": plain_decoded, "special_decoded": special_decoded,
                                        "plain_roundtrip_ok": plain_decoded == text})
            out.write(json.dumps(record, ensure_ascii=False) + "\n")
    print(f"{len(texts)} strings -> {args.out}")


# Pre-tokenizers our two models do not use, checked with SmolLM2's vocabulary and merges under
# other `tokenizer.ggml.pre` values (the split rules differ; the BPE data stays the same).
PRE_VARIANTS = ["llama-bpe", "qwen2", "qwen35", "gpt-2", "default", "falcon", "tekken"]


def pre_variants(args):
    here = os.path.dirname(os.path.abspath(__file__))
    sys.path.insert(0, os.path.join(args.llama_src, "gguf-py"))
    import gguf  # llama.cpp's own GGUF writer, from the llama.cpp source tree
    texts = []
    for name in ["tokenizer-dev.jsonl", "tokenizer-hostile.jsonl"]:
        with open(os.path.join(here, name), encoding="utf-8") as f:
            texts += [json.loads(line)["text"] for line in f if line.strip()]
    reader = gguf.GGUFReader(os.path.join(args.models, MODELS["smollm"]))
    results = {}
    with tempfile.TemporaryDirectory() as work:
        build_dir = os.path.dirname(os.path.dirname(os.path.abspath(args.llama_tokenize)))
        helper = build_helper(args.llama_src, build_dir, work)
        for pre in PRE_VARIANTS:
            path = os.path.join(work, pre + ".gguf")
            w = gguf.GGUFWriter(path, "llama")
            for k, field in reader.fields.items():
                if not k.startswith("tokenizer.ggml."):
                    continue
                v = pre if k == "tokenizer.ggml.pre" else field.contents()
                if field.types[0] == gguf.GGUFValueType.ARRAY:
                    w.add_key_value(k, v, gguf.GGUFValueType.ARRAY, sub_type=field.types[1])
                else:
                    w.add_key_value(k, v, field.types[0])
            w.write_header_to_file()
            w.write_kv_data_to_file()
            w.write_tensors_to_file()
            w.close()
            results[pre] = tokenize_all(helper, path, texts)
            for i in range(0, len(texts), max(1, len(texts) // 6)):
                want = (tokenize(args.llama_tokenize, path, texts[i], False),
                        tokenize(args.llama_tokenize, path, texts[i], True))
                if tuple(results[pre][i][:2]) != want:
                    sys.exit(f"helper disagrees with llama-tokenize on {texts[i]!r} ({pre})")
    out_path = os.path.join(here, "tokenizer-pretokenizers.jsonl")
    with open(out_path, "w", encoding="utf-8") as out:
        for i, text in enumerate(texts):
            record = {"text": text}
            for pre in PRE_VARIANTS:
                plain, special, plain_decoded, _ = results[pre][i]
                record[pre] = {"plain": plain, "special": special, "plain_decoded": plain_decoded}
            out.write(json.dumps(record, ensure_ascii=False) + "\n")
    print(f"{len(texts)} strings x {len(PRE_VARIANTS)} pre-tokenizers -> {out_path}")


if __name__ == "__main__":
    main()
