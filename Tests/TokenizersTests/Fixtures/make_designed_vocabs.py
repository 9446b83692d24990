#!/usr/bin/env python3
"""Writes tiny designed GGUF vocabularies for the tokenizer models our two real models do not
use, and llama.cpp's token ids for a set of strings on each of them.

usage: make_designed_vocabs.py LLAMA_TOKENIZE
  (the `gguf` Python package must be importable: `pip install gguf`, or PYTHONPATH=<llama.cpp>/gguf-py)

Writes, next to this script:
  designed-bert.gguf         tokenizer.ggml.model = "bert" (WordPiece), default normalizer (lowercase,
                             strip accents), BERT's default special ids (100 [UNK], 101 [CLS], 102 [SEP])
  designed-bert-cased.gguf   the same tokens with normalizer.lowercase = false (so no accent stripping)
  designed-bert-strip.gguf   lowercase = false, strip_accents = true
  designed-gemma4.gguf       tokenizer.ggml.model = "gemma4" (BPE over U+2581-escaped UTF-8, <0xNN>
                             byte tokens, add_bos_token = false which llama.cpp overrides)
  designed-vocabs.jsonl      {"vocab", "text", "plain", "special"} per vocabulary and string

Modes, as in make_corpus.py: plain = --no-bos --no-parse-special (add_special and parse_special
off); special = llama-tokenize's defaults (add_special = the model's add_bos, parse_special on).
Each string goes to llama-tokenize's stdin as raw UTF-8 with no trailing newline.
The reference data was made with llama.cpp commit 0c1e57098bba43ac29e6e3b677cdceebdd22334f
(vendored in llama-cpp-python 0.3.36). Nothing from llama.cpp enters the repository.
"""
import json
import os
import subprocess
import sys

import gguf

HERE = os.path.dirname(os.path.abspath(__file__))
N, U, C, UD, UNUSED, B = 1, 2, 3, 4, 5, 6  # token types: normal, unknown, control, user-defined, unused, byte


def bert_tokens():
    # Real BERT layout for the first ids, so the default special ids apply.
    toks = [("[PAD]", C)] + [(f"[unused{i}]", N) for i in range(99)]
    toks += [("[UNK]", C), ("[CLS]", C), ("[SEP]", C), ("[MASK]", C)]
    words = ["▁hello", "▁world", "▁the", "▁a", "▁i", "▁ie", "▁cafe", "▁caf", "▁café", "▁Café", "▁Hello",
             "▁naive", "▁resume", "▁un", "▁play", "▁über", "▁uber", "▁Über", "▁straße", "▁ø", "▁€", "▁🙂",
             "▁1", "▁10", "▁100", "▁2024", "▁中", "▁文", "▁東", "▁京", "▁ᄀ", "▁가", "▁σ", "▁Σ", "▁ς", "▁ı",
             "▁i̇", "▁İ", "▁x", "▁$", "▁+", "▁,", "▁.", "▁!", "▁?", "▁'", "▁\"", "▁(", "▁)", "▁-", "▁:",
             "▁¿", "▁«", "▁»", "▁`", "▁^", "▁=", "▁|", "▁~", "▁@", "▁#", "▁%", "▁&", "▁*", "▁/", "▁\\",
             "▁[", "▁]", "▁{", "▁}", "▁<", "▁>", "▁_", "▁;", "▁s", "▁t", "▁d", "▁ll", "▁re", "▁ve", "▁m",
             "▁hell", "▁wor", "▁an",
             "affable", "able", "aff", "ing", "ed", "s", "e", "d", "o", "ld", "llo", "0", "1", "2", "x",
             "é", "ü", "ss", "ß", "ne", "ma", "r", "l", "t", "🙂", "€", "ᄀ", "ᅡ", "\u0301", "\u0308",
             "[UNK]x", "hello"]
    toks += [(w, N) for w in words]
    return toks


def gemma4_tokens():
    toks = [("<pad>", C), ("<eos>", C), ("<bos>", C), ("<unk>", U), ("<mask>", C),
            ("<|turn>", C), ("<turn|>", C), ("<|tool_call>", UD), ("<tool_call|>", UD), ("<|tool_response>", UD),
            ("<|\"|>", UD), ("[multimodal]", N), ("<unused0>", N)]
    toks += [(f"<0x{b:02X}>", B) for b in range(256)]
    # Characters, then what the merges below make.
    chars = ["▁", "\n", "\t", "h", "e", "l", "o", "w", "r", "d", "a", "b", "c", "i", "s", "t", "n", "g",
             "H", "W", "1", "2", "3", ",", ".", "!", "'", "é", "ü", "中", "文", "🙂"]
    merges = [("l", "l"), ("▁", "▁"), ("\n", "\n"), ("h", "e"), ("he", "ll"), ("hell", "o"), ("▁", "hello"),
              ("o", "r"), ("w", "or"), ("wor", "l"), ("worl", "d"), ("▁", "world"), ("▁▁", "▁▁"), ("\n\n", "\n"),
              ("▁", "H"), ("▁H", "e"), ("i", "n"), ("in", "g"), ("▁", "t"), ("▁t", "h"), ("▁th", "e"),
              ("1", "2"), ("12", "3"), ("▁", "1"), ("中", "文"), ("▁", "中文"), ("\t", "\t"), ("c", "a"),
              ("ca", "f"),  # "f" and "caf" are not tokens: byte fallback for what stays unmerged
              ("▁", "ca"), ("é", "▁"), ("'", "s"), ("\n\n", "\n\n")]
    vocab = [t for t, _ in toks]
    for c in chars:
        toks.append((c, N))
        vocab.append(c)
    for a, b in merges:
        if a + b not in vocab and a + b != "caf":
            toks.append((a + b, N))
            vocab.append(a + b)
    return toks, [f"{a} {b}" for a, b in merges]


STRINGS = [
    "", " ", "  ", "\n", "\n\n", "\n\n\n", "\n\n\n\n\n", " \n", "\t", "\t\t", "hello", "Hello", "HELLO", " hello",
    "hello world", "Hello World!", "hello  world", " Hello, world. ", "hello\nworld", "hello\n\nworld\n",
    "hello\r\nworld", "hello\tworld", "hello\u00a0world", "hello\u3000world", "hello\u200bworld", "hello\u0000x",
    "helloworld", "helloq", "the cafe", "café", "Café", "CAFÉ", "cafe\u0301", "naïve résumé", "über Über",
    "straße", "ø", "İstanbul", "ı", "ΣΑΣ σς", "中文", "東京", "中文 test", "가", "한국", "🙂", "a🙂b", "€100",
    "$100", "1+1=2", "2024", "10,000", "3.14", "it's", "don't", "I'll", "we're", "a-b", "a_b", "(x)", "[x]",
    "{x}", "<x>", "a@b.c", "#tag", "50%", "a&b", "*", "/", "\\", "`x`", "^", "|", "~", "¿qué?", "«x»",
    "unaffable", "playing played plays", "xyz", "[UNK]", "[CLS] hello [SEP]", "[MASK]", "[unused0]",
    "hello[SEP]", "<bos>hello", "<|turn>user\nhello<turn|>", "<|tool_call>x<tool_call|>", "<|\"|>a<|\"|>",
    "<unk>", "<0x41>", "[multimodal]", "<unused0>", "héllo", "hello 123", "123", "1234", "'s", " 's", "a'sb",
    "\u0301", "e\u0301", "x\u0308", "abc", "ing", "in g", "▁hello", "▁", "hello ▁ world",
    "Hello world\n\n\n\nthe\t\tend  ", "   leading", "trailing   ", "\n \n", " \n\n ",
]


def write_vocab(path, arch, model, tokens, extra, merges=None, hparams=None):
    w = gguf.GGUFWriter(path, arch)
    for key, value in (hparams or {}).items():
        if isinstance(value, float):
            w.add_float32(key, value)
        elif isinstance(value, bool):
            w.add_bool(key, value)
        else:
            w.add_uint32(key, value)
    w.add_tokenizer_model(model)
    w.add_token_list([t for t, _ in tokens])
    w.add_token_types([k for _, k in tokens])
    if merges is not None:
        w.add_token_merges(merges)
        w.add_token_scores([0.0] * len(tokens))
    for key, value in extra.items():
        if isinstance(value, bool):
            w.add_bool(key, value)
        else:
            w.add_uint32(key, value)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()


def llama_ids(binary, model, text, special):
    args = [binary, "-m", model, "--stdin", "--ids", "--no-escape", "--log-disable"]
    if not special:
        args += ["--no-bos", "--no-parse-special"]
    r = subprocess.run(args, input=text.encode(), capture_output=True, check=True)
    return json.loads(r.stdout.decode().strip().splitlines()[-1])


def main():
    binary = sys.argv[1]
    bert_hp = {"bert.block_count": 1, "bert.context_length": 512, "bert.embedding_length": 8,
               "bert.feed_forward_length": 8, "bert.attention.head_count": 1,
               "bert.attention.layer_norm_epsilon": 1e-12, "bert.attention.causal": False}
    gemma_hp = {"gemma4.block_count": 1, "gemma4.context_length": 512, "gemma4.embedding_length": 8,
                "gemma4.feed_forward_length": 8, "gemma4.attention.head_count": 1,
                "gemma4.attention.head_count_kv": 1, "gemma4.attention.layer_norm_rms_epsilon": 1e-6,
                "gemma4.attention.key_length": 8, "gemma4.attention.value_length": 8}
    vocabs = {
        "bert": ("bert", "bert", bert_tokens(), {}, None, bert_hp),
        "bert-cased": ("bert", "bert", bert_tokens(), {"tokenizer.ggml.normalizer.lowercase": False}, None, bert_hp),
        "bert-strip": ("bert", "bert", bert_tokens(), {"tokenizer.ggml.normalizer.lowercase": False,
                                                       "tokenizer.ggml.normalizer.strip_accents": True}, None, bert_hp),
    }
    gtoks, gmerges = gemma4_tokens()
    vocabs["gemma4"] = ("gemma4", "gemma4", gtoks, {"tokenizer.ggml.bos_token_id": 2, "tokenizer.ggml.eos_token_id": 1,
                                                    "tokenizer.ggml.unknown_token_id": 3,
                                                    "tokenizer.ggml.padding_token_id": 0,
                                                    "tokenizer.ggml.add_bos_token": False}, gmerges, gemma_hp)
    lines = []
    for name, (arch, model, tokens, extra, merges, hp) in vocabs.items():
        path = os.path.join(HERE, f"designed-{name}.gguf")
        write_vocab(path, arch, model, tokens, extra, merges, hp)
        for text in STRINGS:
            lines.append(json.dumps({"vocab": name, "text": text, "plain": llama_ids(binary, path, text, False),
                                     "special": llama_ids(binary, path, text, True)}, ensure_ascii=False))
    with open(os.path.join(HERE, "designed-vocabs.jsonl"), "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    print(f"{len(lines)} cases over {len(vocabs)} vocabularies")


if __name__ == "__main__":
    main()
