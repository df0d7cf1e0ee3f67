"""build_chat_model and the llm-server manager, without any server (structured calls and
usage: test_llm_runtime.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from langchain_core.callbacks import BaseCallbackHandler
from pydantic import SecretStr

from kg_rag.config import LLMServerSettings, LLMSettings
from kg_rag.errors import ConfigError, ServerError
from kg_rag.llm import build_chat_model

pytestmark = pytest.mark.unit


# --- build_chat_model ----------------------------------------------------------------------


def test_build_chat_model_refuses_when_no_llm_is_configured() -> None:
    with pytest.raises(ConfigError, match="KG_RAG_LLM__BASE_URL"):
        build_chat_model(LLMSettings())


def test_build_chat_model_passes_settings_through_for_a_compatible_server() -> None:
    from langchain_openai import ChatOpenAI

    tracker = BaseCallbackHandler()
    settings = LLMSettings(
        base_url="http://127.0.0.1:8765/v1",
        model="gemma",
        temperature=0.3,
        max_tokens=77,
        timeout_s=12.5,
        max_retries=4,
    )
    model = build_chat_model(settings, callbacks=[tracker])

    assert isinstance(model, ChatOpenAI)
    assert model.openai_api_base == "http://127.0.0.1:8765/v1"
    assert model.model_name == "gemma"
    assert model.temperature == 0.3
    assert model.max_tokens == 77
    assert model.request_timeout == 12.5
    assert model.max_retries == 4
    # llama.cpp ignores max_completion_tokens: max_tokens must travel in the body too.
    assert model.extra_body == {"max_tokens": 77}
    assert model.openai_api_key is not None  # a placeholder: the client needs one
    assert model.callbacks == [tracker]


def test_build_chat_model_for_openai_sends_no_extra_max_tokens() -> None:
    model = build_chat_model(LLMSettings(api_key=SecretStr("sk-test"), max_tokens=50))

    assert model.extra_body is None  # type: ignore[attr-defined]
    assert model.openai_api_key.get_secret_value() == "sk-test"  # type: ignore[attr-defined]
    assert model.max_tokens == 50  # type: ignore[attr-defined]


# --- llm_server without a server -----------------------------------------------------------


def test_llm_server_start_without_the_extra_says_what_to_install(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    import importlib.util

    from kg_rag import llm_server

    real_find_spec = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util,
        "find_spec",
        lambda name, *a: None if name == "llama_cpp" else real_find_spec(name, *a),
    )
    settings = LLMServerSettings(cache_dir=tmp_path)

    with pytest.raises(ServerError, match=r"pip install -e '\.\[llm-server\]'"):
        llm_server.start(settings, log=lambda _: None)
    assert not any(tmp_path.iterdir())  # nothing assembled, nothing started
