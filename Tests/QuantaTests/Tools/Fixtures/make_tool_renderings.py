#!/usr/bin/env python3
"""Reference renderings of tool conversations with Python's jinja2, configured as Hugging Face's
`apply_chat_template` configures it, for the templates with native tool support.

    pip install jinja2 && python3 Tests/QuantaTests/Tools/Fixtures/make_tool_renderings.py

Writes tool-renderings.json beside this script: for each template and scenario, the exact
`messages` and `tools` rendered (in the OpenAI shape transformers and llama.cpp pass) and the
output or the error raised. ToolPromptTests checks that the Swift lowering produces exactly these
messages and tools, and that Quanta's template engine renders them to exactly this output.
"""
import json
import os

import jinja2
from jinja2.ext import loopcontrols
from jinja2.sandbox import ImmutableSandboxedEnvironment

HERE = os.path.dirname(os.path.abspath(__file__))
TEMPLATES = os.path.join(HERE, "..", "..", "..", "TemplatesTests", "Fixtures", "templates")


def raise_exception(message):
    raise jinja2.exceptions.TemplateError(message)


def tojson(x, ensure_ascii=False, indent=None, separators=None, sort_keys=False):
    # transformers.utils.chat_template_utils: json.dumps with these defaults.
    return json.dumps(x, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys)


def environment():
    env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True, extensions=[loopcontrols])
    env.filters["tojson"] = tojson
    env.globals["raise_exception"] = raise_exception
    return env


# (bos, eos) as each model's tokenizer defines them.
TOKENS = {
    "hermes3-tool-use": ("<|begin_of_text|>", "<|im_end|>"),
    "qwen2.5": ("<|endoftext|>", "<|im_end|>"),
    "qwen3": ("<|endoftext|>", "<|im_end|>"),
    "llama3": ("<|begin_of_text|>", "<|eot_id|>"),
    "mistral-v0.3": ("<s>", "</s>"),
}

# Llama 3.x prints today's date; fixed so the output is reproducible.
EXTRA = {"date_string": "15 Jan 2026"}

TOOLS = [
    {"type": "function", "function": {
        "name": "get_weather",
        "description": "Get the current weather in a city",
        "parameters": {
            "type": "object",
            "properties": {
                "city": {"type": "string", "description": "City name, e.g. Zürich"},
                "unit": {"type": "string", "description": "Temperature unit", "enum": ["celsius", "fahrenheit"]},
            },
            "required": ["city"],
        },
    }},
    {"type": "function", "function": {
        "name": "get_time",
        "description": "Get the current time",
        "parameters": {"type": "object", "properties": {}},
    }},
]

SYSTEM = {"role": "system", "content": "You are a concise assistant."}
USER = {"role": "user", "content": "What's the weather in Zürich, and what time is it?"}


def call(call_id, name, arguments):
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


def result(call_id, name, content):
    return {"role": "tool", "content": content, "tool_call_id": call_id, "name": name}


WEATHER = call("call0w3th", "get_weather", {"city": "Zürich", "unit": "celsius"})
TIME = call("call1t1me", "get_time", {})
WEATHER_RESULT = result("call0w3th", "get_weather", '{"temperature": 21, "condition": "sunny"}')
TIME_RESULT = result("call1t1me", "get_time", "09:30")

SCENARIOS = {
    # One call and its result, then the model's turn.
    "single": [SYSTEM, USER, {"role": "assistant", "content": "", "tool_calls": [WEATHER]}, WEATHER_RESULT],
    # Two calls in one turn, two results, and the final answer.
    "parallel": [
        SYSTEM, USER,
        {"role": "assistant", "content": "", "tool_calls": [WEATHER, TIME]},
        WEATHER_RESULT, TIME_RESULT,
        {"role": "assistant", "content": "It is sunny and 21 °C in Zürich; the time is 09:30."},
    ],
}


def main():
    env = environment()
    cases = []
    for name, (bos, eos) in TOKENS.items():
        with open(os.path.join(TEMPLATES, name + ".jinja"), encoding="utf-8") as f:
            template = env.from_string(f.read())
        for scenario, messages in SCENARIOS.items():
            case = {"template": name, "scenario": scenario, "messages": messages, "tools": TOOLS}
            try:
                case["expected"] = template.render(messages=messages, tools=TOOLS, add_generation_prompt=True,
                                                   bos_token=bos, eos_token=eos, **EXTRA)
            except jinja2.exceptions.TemplateError as error:
                case["error"] = str(error)
            cases.append(case)
    with open(os.path.join(HERE, "tool-renderings.json"), "w", encoding="utf-8") as f:
        json.dump(cases, f, ensure_ascii=False, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
