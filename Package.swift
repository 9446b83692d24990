// swift-tools-version:6.0
// Quanta: an on-device LLM inference engine for GGUF models, with its own quantized kernels.
//
// No target carries `unsafeFlags`, so other packages can depend on Quanta by version. ISA-specific
// C code uses per-function `target` attributes with runtime dispatch instead of `-mavx512f`, and
// threads come from libomp's C entry points instead of `-fopenmp`.
import PackageDescription

let package = Package(
    name: "Quanta",
    products: [
        .library(name: "GGUF", targets: ["GGUF"]),
        .library(name: "Engine", targets: ["Engine"]),
        .library(name: "Tokenizers", targets: ["Tokenizers"]),
        .executable(name: "quanta", targets: ["quanta"]),
        .executable(name: "bench", targets: ["bench"]),
    ],
    targets: [
        // MARK: - Kernels (C)
        .target(
            name: "CKernels",
            path: "CKernels",
            publicHeadersPath: "include",
            linkerSettings: [
                .linkedLibrary("openblas"),
                .linkedLibrary("omp5"),
                .linkedLibrary("m"),
            ]
        ),

        // MARK: - Libraries
        .target(name: "GGUF", path: "Sources/GGUF"),
        .target(name: "Engine", dependencies: ["CKernels", "GGUF"], path: "Sources/Engine"),
        .target(name: "Tokenizers", dependencies: ["GGUF"], path: "Sources/Tokenizers"),

        // MARK: - Executables
        .executableTarget(name: "quanta", dependencies: ["GGUF", "Engine", "Tokenizers"], path: "Sources/quanta"),
        .executableTarget(name: "bench", dependencies: ["GGUF", "Engine", "CKernels", "Tokenizers"], path: "Benchmarks/bench"),

        // MARK: - Tests
        .testTarget(name: "GGUFTests", dependencies: ["GGUF"], path: "Tests/GGUFTests"),
        .testTarget(
            name: "TokenizersTests", dependencies: ["Tokenizers", "GGUF"], path: "Tests/TokenizersTests",
            // Fixtures are read from the source tree via #filePath (JSONL ids from llama.cpp).
            exclude: ["Fixtures"]
        ),
    ]
)
