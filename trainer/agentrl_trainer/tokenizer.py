"""The policy's tokenizer, defined once in shared/tokenizer.json and implemented identically in
shared/math/tokenizer.ts: ids 0-255 are raw bytes, then the special tokens, then multi-byte words.
Encoding is greedy longest match of the words over the bytes, else one byte; special tokens are
never produced from text. Golden ids: shared/golden/tokenizer.json (both test suites read it).

  python -m agentrl_trainer.tokenizer --write-golden   # regenerates the golden file
"""

from __future__ import annotations

import base64
import json
import sys
from pathlib import Path

SHARED = Path(__file__).resolve().parents[2] / "shared"


class Tokenizer:
    def __init__(self, definition: dict):
        self.name = definition["name"]
        self.byte_tokens = definition["byteTokens"]
        self.specials = {name: self.byte_tokens + index for index, name in enumerate(definition["specials"])}
        first_word = self.byte_tokens + len(definition["specials"])
        self.words = [word.encode("utf-8") for word in definition["words"]]
        self.word_ids = {word: first_word + index for index, word in enumerate(self.words)}
        self.vocab_size = first_word + len(self.words)
        # candidates by first byte, longest first: the first that matches wins
        self.by_first: dict[int, list[bytes]] = {}
        for word in sorted(self.words, key=len, reverse=True):
            self.by_first.setdefault(word[0], []).append(word)
        self.id_bytes = {token: word for word, token in self.word_ids.items()}

    def encode(self, data: bytes | str) -> list[int]:
        """Token ids of a text or byte string; never a special id."""
        raw = data.encode("utf-8") if isinstance(data, str) else bytes(data)
        ids, position = [], 0
        while position < len(raw):
            for word in self.by_first.get(raw[position], ()):
                if raw.startswith(word, position):
                    ids.append(self.word_ids[word])
                    position += len(word)
                    break
            else:
                ids.append(raw[position])
                position += 1
        return ids

    def decode_bytes(self, ids: list[int]) -> bytes:
        """The exact bytes of non-special ids; a special id raises."""
        out = bytearray()
        for token in ids:
            if token < self.byte_tokens:
                out.append(token)
            elif token in self.id_bytes:
                out += self.id_bytes[token]
            else:
                raise ValueError(f"token {token} is a special token or outside the vocabulary of {self.vocab_size}")
        return bytes(out)


def load_tokenizer(path: Path = SHARED / "tokenizer.json") -> Tokenizer:
    return Tokenizer(json.loads(path.read_text(encoding="utf-8")))


GOLDEN_TEXTS = [
    ("ascii", b"hello world"),
    ("empty", b""),
    ("tool call", b'{"tool": "bash", "command": "python3 -m pytest -q"}'),
    ("python source", b"def overlaps(a, b):\n    return a[0] < b[1] and b[0] <= a[1]\n"),
    (
        "pytest output",
        b"FAILED tests/test_intervals.py::test_touching - AssertionError: assert True == False\n[exit code 1]",
    ),
    ("unicode", "caf\u00e9 \u4e2d\u6587 \U0001f600 na\u00efve".encode()),
    ("invalid utf-8", b"\xff\xfe\x80abc\xc3(\xed\xa0\x80"),
    ("spelled specials", b"<act>run</act><obs>x</obs><pad><eos>"),
    ("whitespace", b"\t\n\n    \n        x"),
]


def write_golden(path: Path = SHARED / "golden" / "tokenizer.json") -> None:
    tokenizer = load_tokenizer()
    cases = [
        {"name": name, "bytesBase64": base64.b64encode(data).decode(), "ids": tokenizer.encode(data)}
        for name, data in GOLDEN_TEXTS
    ]
    doc = {
        "tokenizer": tokenizer.name,
        "vocabSize": tokenizer.vocab_size,
        "specialIds": tokenizer.specials,
        "cases": cases,
    }
    path.write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    if sys.argv[1:] == ["--write-golden"]:
        write_golden()
    else:
        sys.exit(__doc__)
