"""Drives `quanta serve` with the official `openai` Python package, as applications do.

usage: openai_client.py BASE_URL API_KEY
Prints one JSON object with what the client parsed; ServerClientTests checks it against the
Swift API's own answers. Any exception (a response the client cannot parse) exits non-zero.
"""
import json
import sys

import openai

base_url, api_key = sys.argv[1], sys.argv[2]
client = openai.OpenAI(base_url=base_url, api_key=api_key, max_retries=0, timeout=120)
out = {}

question = [{"role": "system", "content": "You are a helpful assistant."},
            {"role": "user", "content": "What is the capital of France?"}]

# Chat, whole answer, greedy.
r = client.chat.completions.create(model="SmolLM2-135M-Instruct.Q4_1", messages=question, temperature=0, max_tokens=24)
out["chat"] = {"content": r.choices[0].message.content, "finish_reason": r.choices[0].finish_reason,
               "prompt_tokens": r.usage.prompt_tokens, "completion_tokens": r.usage.completion_tokens,
               "cached_tokens": r.usage.prompt_tokens_details.cached_tokens, "object": r.object}

# The same request streamed: the deltas must add up to the same answer.
deltas, finish, usage, cached = [], None, None, None
with client.chat.completions.create(model="SmolLM2-135M-Instruct.Q4_1", messages=question, temperature=0, max_tokens=24,
                                    stream=True, stream_options={"include_usage": True}) as stream:
    for chunk in stream:
        if chunk.usage is not None:
            usage = chunk.usage.completion_tokens
            cached = chunk.usage.prompt_tokens_details.cached_tokens
        for choice in chunk.choices:
            if choice.delta.content:
                deltas.append(choice.delta.content)
            if choice.finish_reason:
                finish = choice.finish_reason
out["stream"] = {"content": "".join(deltas), "chunks": len(deltas), "finish_reason": finish, "completion_tokens": usage,
                 "cached_tokens": cached}

# Tools: a required call of the one tool, arguments as JSON text.
weather = {"type": "function", "function": {
    "name": "get_weather", "description": "Current weather in a city",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}
r = client.chat.completions.create(model="SmolLM2-135M-Instruct.Q4_1",
                                   messages=[{"role": "user", "content": "What is the weather in Paris?"}],
                                   tools=[weather], tool_choice="required", temperature=0, max_tokens=64)
calls = r.choices[0].message.tool_calls or []
out["tools"] = {"finish_reason": r.choices[0].finish_reason,
                "calls": [{"id": c.id, "name": c.function.name, "arguments": json.loads(c.function.arguments)} for c in calls]}

# The tool's answer goes back as a tool message; the model then answers in text.
if calls:
    follow = client.chat.completions.create(model="SmolLM2-135M-Instruct.Q4_1", messages=[
        {"role": "user", "content": "What is the weather in Paris?"},
        {"role": "assistant", "content": None, "tool_calls": [c.model_dump() for c in calls]},
        {"role": "tool", "tool_call_id": calls[0].id, "content": "sunny, 21 C"}], tools=[weather], temperature=0, max_tokens=32)
    out["tool_followup"] = {"finish_reason": follow.choices[0].finish_reason, "content": follow.choices[0].message.content}

# Structured output: the answer parses and follows the schema.
schema = {"type": "object", "properties": {"name": {"type": "string"}, "age": {"type": "integer", "minimum": 0, "maximum": 120}},
          "required": ["name", "age"], "additionalProperties": False}
r = client.chat.completions.create(model="SmolLM2-135M-Instruct.Q4_1",
                                   messages=[{"role": "user", "content": "Invent a person."}],
                                   response_format={"type": "json_schema", "json_schema": {"name": "person", "schema": schema, "strict": True}},
                                   temperature=0, max_tokens=64)
out["json_schema"] = {"content": r.choices[0].message.content, "parsed": json.loads(r.choices[0].message.content)}

# json_object: any JSON object, by constrained decoding; prompts that invite an array, a bare number
# and a string too, whole, sampled near-randomly and streamed. Each answer's text and what json.loads makes of it.
def loaded(text):
    try:
        return {"text": text, "type": type(json.loads(text)).__name__}
    except ValueError as e:
        return {"text": text, "type": None, "error": str(e)}

json_object = []
for prompt in ["Describe a cat as JSON.", "Give a JSON array of three colours.", "Reply with the number 42 and nothing else.",
               "Say hello in quotes."]:
    r = client.chat.completions.create(model="SmolLM2-135M-Instruct.Q4_1", messages=[{"role": "user", "content": prompt}],
                                       response_format={"type": "json_object"}, max_tokens=48, temperature=0)
    json_object.append(loaded(r.choices[0].message.content))
# Sampled at temperature 2 with no top-k or min-p: near-random tokens, most of which the mask must
# refuse (unconstrained, these seeds open with a string), cut short by max_tokens.
for seed in range(4):
    r = client.chat.completions.create(model="SmolLM2-135M-Instruct.Q4_1",
                                       messages=[{"role": "user", "content": "Give a JSON array of three colours."}],
                                       response_format={"type": "json_object"}, max_tokens=24, temperature=2, top_p=1, seed=seed,
                                       extra_body={"top_k": 0, "min_p": 0})
    json_object.append(loaded(r.choices[0].message.content))
stream = client.chat.completions.create(model="SmolLM2-135M-Instruct.Q4_1",
                                        messages=[{"role": "user", "content": "List two fruits as JSON."}],
                                        response_format={"type": "json_object"}, max_tokens=48, temperature=0, stream=True)
json_object.append(loaded("".join(c.choices[0].delta.content or "" for c in stream if c.choices)))
out["json_object"] = json_object

# Legacy completions and the model list.
r = client.completions.create(model="SmolLM2-135M-Instruct.Q4_1", prompt="The best way to learn programming is",
                              max_tokens=12, temperature=0)
out["completion"] = {"text": r.choices[0].text, "completion_tokens": r.usage.completion_tokens, "finish_reason": r.choices[0].finish_reason}
out["models"] = [m.id for m in client.models.list()]

# Errors arrive as the client's typed exceptions with OpenAI's error object.
try:
    client.chat.completions.create(model="no-such-model", messages=question)
    out["unknown_model"] = None
except openai.NotFoundError as e:
    out["unknown_model"] = {"status": e.status_code, "code": e.code}
try:
    openai.OpenAI(base_url=base_url, api_key="wrong", max_retries=0).models.list()
    out["wrong_key"] = None
except openai.AuthenticationError as e:
    out["wrong_key"] = {"status": e.status_code, "code": e.code}

print(json.dumps(out))
