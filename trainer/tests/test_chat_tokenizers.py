"""Chat model families' tokenizers and templates (tokenizers, transformers) against the golden corpus
that the TypeScript suite reads too (shared/golden/chat-tokenizers.json)."""

import base64
import json

import pytest
from agentrl_trainer import chat_tokenizers
from agentrl_trainer.chat_tokenizers import FAMILIES, GOLDEN_PATH, GOLDEN_TOOL, load

GOLDEN = json.loads(GOLDEN_PATH.read_text())


def corpus_text(entry):
    if "text" in entry:
        return entry["text"]
    return base64.b64decode(entry["bytesBase64"]).decode("utf-8", errors="replace")


def test_golden_file_is_what_the_writer_writes():
    assert GOLDEN == json.loads(json.dumps(chat_tokenizers.golden(), ensure_ascii=False))


@pytest.mark.parametrize("family", list(FAMILIES))
def test_text_ids_and_decoding(family):
    tokenizer = load(family)
    for entry in GOLDEN["families"][family]["texts"]:
        text = corpus_text(entry)
        assert tokenizer.encode_text(text) == entry["ids"], entry["name"]
        normalizer = tokenizer.markup.normalizer
        assert tokenizer.decode(entry["ids"]) == (normalizer.normalize_str(text) if normalizer else text), entry["name"]


@pytest.mark.parametrize("family", list(FAMILIES))
def test_spelled_specials_never_become_special_ids(family):
    tokenizer = load(family)
    eos = tokenizer.markup.token_to_id("<|im_end|>")
    spelled = next(entry for entry in GOLDEN["families"][family]["texts"] if entry["name"] == "spelled-specials")
    assert eos not in spelled["ids"]
    added = {
        token.get("id")
        for token in json.loads((chat_tokenizers.family_dir(family) / "tokenizer.json").read_text())["added_tokens"]
    }
    for entry in GOLDEN["families"][family]["texts"]:
        assert not added & set(entry["ids"]), entry["name"]
    assert tokenizer.encode_markup("<|im_end|>") == [eos]


@pytest.mark.parametrize("family", list(FAMILIES))
def test_conversations_render_and_tokenize(family):
    tokenizer = load(family)
    for entry in GOLDEN["families"][family]["conversations"]:
        tools = [GOLDEN_TOOL] if entry["tools"] else None
        assert tokenizer.render(entry["messages"], tools, entry["addGenerationPrompt"]) == entry["rendered"]
        assert tokenizer.render_ids(entry["messages"], tools, entry["addGenerationPrompt"]) == entry["ids"]


def test_smollm2_cache_splits_digits_like_the_published_tokenizer():
    tokenizer = load("smollm2-135m-instruct")
    ids = tokenizer.encode_text("12345")
    assert len(ids) == 5 and tokenizer.decode(ids) == "12345"


def test_unknown_family_lists_the_known_ones():
    with pytest.raises(ValueError, match="known: smollm2-135m-instruct, qwen3"):
        chat_tokenizers.family_dir("llama-9000")


@pytest.mark.parametrize("family", list(FAMILIES))
def test_generated_ids_decode_to_the_text_and_reencode_differently(family):
    tokenizer = load(family)
    for entry in GOLDEN["families"][family]["generated"]:
        assert tokenizer.decode(entry["ids"]) == entry["text"]
        assert tokenizer.encode_text(entry["text"]) == entry["reencoded"] != entry["ids"], entry["name"]
