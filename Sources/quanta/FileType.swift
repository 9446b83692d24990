/// llama.cpp's name for a GGUF `general.file_type` value (its `llama_ftype` enum, spelled as
/// llama-quantize and model file names spell it: `Q4_K_M`), or nil for a value it has no name
/// for. llama.cpp marks a type it guessed (not stored in the file) with 1024; such a value is
/// named with " (guessed)".
func fileTypeName(_ value: Int) -> String? {
    if value >= 1024, let base = fileTypeName(value - 1024) { return base + " (guessed)" }
    return fileTypeNames[value]
}

private let fileTypeNames: [Int: String] = [
    0: "F32", 1: "F16", 2: "Q4_0", 3: "Q4_1", 4: "Q4_1_SOME_F16",
    7: "Q8_0", 8: "Q5_0", 9: "Q5_1", 10: "Q2_K", 11: "Q3_K_S", 12: "Q3_K_M", 13: "Q3_K_L",
    14: "Q4_K_S", 15: "Q4_K_M", 16: "Q5_K_S", 17: "Q5_K_M", 18: "Q6_K",
    19: "IQ2_XXS", 20: "IQ2_XS", 21: "Q2_K_S", 22: "IQ3_XS", 23: "IQ3_XXS", 24: "IQ1_S", 25: "IQ4_NL",
    26: "IQ3_S", 27: "IQ3_M", 28: "IQ2_S", 29: "IQ2_M", 30: "IQ4_XS", 31: "IQ1_M", 32: "BF16",
    33: "Q4_0_4_4", 34: "Q4_0_4_8", 35: "Q4_0_8_8", 36: "TQ1_0", 37: "TQ2_0", 38: "MXFP4_MOE",
]
