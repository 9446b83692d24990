// swift-tools-version:6.0
// Quanta: an on-device LLM inference engine for GGUF models, with its own quantized kernels.
//
// No target carries `unsafeFlags`, so other packages can depend on Quanta by version. ISA-specific
// C code uses per-function `target` attributes with runtime dispatch instead of `-mavx512f`, and
// threads come from libomp's C entry points instead of `-fopenmp`.
import CompilerPluginSupport
import PackageDescription

let package = Package(
    name: "Quanta",
    products: [
        .library(name: "GGUF", targets: ["GGUF"]),
        .library(name: "Engine", targets: ["Engine"]),
        .library(name: "Tokenizers", targets: ["Tokenizers"]),
        .library(name: "Templates", targets: ["Templates"]),
        .library(name: "Sampling", targets: ["Sampling"]),
        .library(name: "Grammar", targets: ["Grammar"]),
        .library(name: "Architectures", targets: ["Architectures"]),
        .library(name: "Quanta", targets: ["Quanta"]),
        .library(name: "Evaluation", targets: ["Evaluation"]),
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

        // MARK: - Macros
        // The compiler runs this as a plugin process (JSON over stdin/stdout, through the JSON
        // target's coder); it reads the declarations' source text itself, so it needs no swift-syntax.
        .macro(name: "QuantaMacros", dependencies: ["JSON"], path: "Sources/QuantaMacros"),

        // MARK: - Libraries
        .target(name: "GGUF", path: "Sources/GGUF"),
        .target(name: "Engine", dependencies: ["CKernels", "GGUF"], path: "Sources/Engine"),
        .target(name: "Tokenizers", dependencies: ["GGUF"], path: "Sources/Tokenizers"),
        // JSON reading (whole documents or a stream's prefix, into the caller's own values),
        // string escaping and writing, and Codable coding over JSONValue; shared by the templates,
        // the grammar, the API, the macro plugin and bench.
        .target(name: "JSON", path: "Sources/JSON"),
        .target(name: "Templates", dependencies: ["JSON"], path: "Sources/Templates"),
        .target(name: "Sampling", path: "Sources/Sampling"),
        .target(name: "Grammar", dependencies: ["JSON"], path: "Sources/Grammar"),
        .target(name: "Architectures", dependencies: ["Engine", "GGUF"], path: "Sources/Architectures"),
        // The FM27 surface: sessions, transcript, options, errors, schemas and generated content,
        // tools, profiles, the macros' declarations. Knows no model format.
        .target(name: "LanguageModelAPI", dependencies: ["JSON", "QuantaMacros"], path: "Sources/LanguageModelAPI"),
        // The local GGUF backend: LocalLanguageModel and SystemLanguageModel, the executor, prompt
        // rendering, chat and tool-call formats, constrained output, the decode loop.
        .target(
            name: "LocalModels",
            dependencies: ["LanguageModelAPI", "Architectures", "Engine", "GGUF", "JSON", "Tokenizers", "Templates", "Sampling", "Grammar"],
            path: "Sources/LocalModels"
        ),
        // What apps import: the two above, re-exported.
        .target(name: "Quanta", dependencies: ["LanguageModelAPI", "LocalModels"], path: "Sources/Quanta"),
        // Perplexity, KL divergence and log-probability files, for `quanta perplexity` and bench.
        .target(name: "Evaluation", dependencies: ["LocalModels", "Architectures", "Engine"], path: "Sources/Evaluation"),

        // MARK: - Executables
        // The argument grammar `quanta` and `bench` share: option specs, one parser, usage text,
        // one-line errors with "did you mean".
        .target(name: "CommandLineSpec", path: "Sources/CommandLineSpec"),
        // libedit (Debian's libedit-dev) for `quanta chat`'s line editing and history.
        .systemLibrary(
            name: "CLineEdit",
            path: "Sources/CLineEdit",
            pkgConfig: "libedit",
            providers: [.apt(["libedit-dev"])]
        ),
        // libmicrohttpd (Debian's libmicrohttpd-dev) for `quanta serve`'s HTTP.
        .systemLibrary(
            name: "CMicroHTTPD",
            path: "Sources/CMicroHTTPD",
            pkgConfig: "libmicrohttpd",
            providers: [.apt(["libmicrohttpd-dev"])]
        ),
        // `quanta serve`: HTTP over libmicrohttpd and the OpenAI-compatible endpoints on the
        // local executor.
        .target(name: "Server", dependencies: ["CMicroHTTPD", "JSON", "LanguageModelAPI", "LocalModels"], path: "Sources/Server"),
        .executableTarget(
            name: "quanta",
            dependencies: ["CommandLineSpec", "GGUF", "JSON", "Tokenizers", "Templates", "Quanta", "Evaluation", "CLineEdit", "Server"],
            path: "Sources/quanta"
        ),
        .executableTarget(
            name: "bench",
            dependencies: ["CommandLineSpec", "GGUF", "Engine", "Architectures", "CKernels", "JSON", "Tokenizers", "Grammar", "SyntheticModels"],
            path: "Benchmarks/bench"
        ),
        // Random-weight GGUF files with published models' shapes and llama.cpp's type mixes, for
        // `bench --synthetic` (measuring at 1–8B sizes without downloading weights).
        .target(name: "SyntheticModels", dependencies: ["GGUF"], path: "Benchmarks/SyntheticModels"),
        // An FM27 app as Apple's documentation writes one, with a driver that checks its answers.
        .executableTarget(name: "fm27-example", dependencies: ["Quanta"], path: "Examples/FM27App"),

        // MARK: - Tests
        // A seeded generator every test target shares (SplitMix64), so failing cases replay.
        .target(name: "TestSupport", path: "Tests/TestSupport"),
        .testTarget(name: "GGUFTests", dependencies: ["GGUF", "TestSupport"], path: "Tests/GGUFTests"),
        .testTarget(
            name: "SyntheticModelsTests", dependencies: ["SyntheticModels", "GGUF", "Architectures", "Engine"],
            path: "Tests/SyntheticModelsTests"
        ),
        .testTarget(name: "JSONTests", dependencies: ["JSON", "TestSupport"], path: "Tests/JSONTests"),
        .testTarget(
            name: "EngineTests",
            dependencies: ["Engine", "GGUF", "CKernels"],
            path: "Tests/EngineTests",
            exclude: ["Fixtures/make_fixtures.py"],
            resources: [.copy("Fixtures")]
        ),
        .testTarget(name: "KernelsTests", dependencies: ["Engine", "GGUF", "CKernels", "TestSupport"], path: "Tests/KernelsTests"),
        .testTarget(
            name: "TokenizersTests", dependencies: ["Tokenizers", "GGUF"], path: "Tests/TokenizersTests",
            // Fixtures are read from the source tree via #filePath (JSONL ids from llama.cpp).
            exclude: ["Fixtures"]
        ),
        .testTarget(name: "SamplingTests", dependencies: ["Sampling"], path: "Tests/SamplingTests"),
        .testTarget(name: "GrammarTests", dependencies: ["Grammar", "Tokenizers", "GGUF", "TestSupport"], path: "Tests/GrammarTests"),
        .testTarget(
            name: "ArchitecturesTests", dependencies: ["Architectures", "Engine", "GGUF", "TestSupport"], path: "Tests/ArchitecturesTests",
            // llama.cpp reference outputs, read from the source tree via #filePath.
            exclude: ["Fixtures"]
        ),
        .testTarget(
            name: "TemplatesTests",
            dependencies: ["Templates", "GGUF"],
            path: "Tests/TemplatesTests",
            // Fixtures are read from the source tree (see Fixtures.swift), not bundled.
            exclude: ["Fixtures"]
        ),
        // Tiny GGUF models whose greedy output is designed (a thinking model), written by the
        // tests that need one.
        .target(name: "DesignedModels", dependencies: ["GGUF"], path: "Tests/DesignedModels"),
        .testTarget(
            name: "QuantaTests",
            dependencies: ["DesignedModels", "Quanta", "LanguageModelAPI", "LocalModels", "Evaluation", "Architectures", "Tokenizers", "Templates", "GGUF", "Grammar", "JSON"],
            path: "Tests/QuantaTests",
            // jinja2 reference renderings and schemas of hand-written conformances, read from the
            // source tree via #filePath.
            exclude: ["Tools/Fixtures", "Guided/MacroSchemaFixtures"]
        ),
        .testTarget(name: "CLITests", dependencies: ["GGUF"], path: "Tests/CLITests"),
        // `quanta serve` driven by real clients (the `openai` Python package, curl), and its request
        // decoding in process.
        .testTarget(name: "ServerTests", dependencies: ["Server", "JSON", "Quanta", "DesignedModels", "TestSupport"], path: "Tests/ServerTests",
                    exclude: ["openai_client.py", "ollama_client.py"]),
        // Drives the macro plugin executable through the compiler's protocol (golden expansions,
        // fuzz). It runs the plugin built for `Quanta` from .build and must not depend on the
        // macro target: a test target that does makes SwiftPM build every target twice, once
        // for the host as a tool (2x the clean build's CPU time).
        .testTarget(name: "QuantaMacrosTests", dependencies: ["TestSupport"], path: "Tests/QuantaMacrosTests", exclude: ["Golden"]),
        // An FM27 app file that must compile unchanged but for its import.
        .testTarget(name: "FM27CompatTests", dependencies: ["Quanta"], path: "Tests/FM27CompatTests", exclude: ["SchemaFixtures"]),
    ]
)
