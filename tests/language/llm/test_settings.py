import os
import subprocess
import sys
from pathlib import Path

import pytest
from langchain_openai import ChatOpenAI
from pydantic import SecretStr

from backend.domain.language.llm import (
    ROLES,
    LlmConfigurationError,
    LlmSettings,
    SqlGeneratorRole,
    build_chat_model,
)
from backend.domain.language.llm.settings import DEFAULT_PROMPT_TOKEN_BUDGET


def test_defaults_use_the_builtin_engine_and_function_calling() -> None:
    settings = LlmSettings.from_mapping({})
    assert settings.provider == "builtin"
    assert not settings.uses_llm
    assert set(settings.roles) == set(ROLES)
    for role in ROLES:
        role_settings = settings.role(role)
        assert role_settings.structured_output == "function_calling"
        assert role_settings.timeout_s == 60.0
        assert role_settings.max_retries == 2
        assert role_settings.temperature == 0.0
        assert not role_settings.dedicated


def test_shared_values_apply_to_every_role_and_each_role_can_override_them() -> None:
    settings = LlmSettings.from_mapping(
        {
            "LLM_PROVIDER": "openai",
            "LLM_BASE_URL": "http://gpu-1:8000/v1",
            "LLM_MODEL": "deepseek-v3",
            "LLM_API_KEY": "sk-shared",
            "LLM_TIMEOUT": "30",
            "LLM_STRUCTURED_OUTPUT": "json_mode",
            "LLM_QST_PARSER_BASE_URL": "http://gpu-2:8000/v1",
            "LLM_QST_PARSER_MODEL": "qwen2.5-7b-instruct",
            "LLM_QST_PARSER_MAX_RETRIES": "4",
            "LLM_JUDGE_STRUCTURED_OUTPUT": "json_schema",
            "LLM_JUDGE_TEMPERATURE": "0.3",
        }
    )
    assert settings.uses_llm
    generator = settings.role("sql_generator")
    assert (generator.base_url, generator.model, generator.api_key) == (
        "http://gpu-1:8000/v1",
        "deepseek-v3",
        "sk-shared",
    )
    assert (generator.timeout_s, generator.structured_output, generator.dedicated) == (
        30.0,
        "json_mode",
        False,
    )
    parser = settings.role("qst_parser")
    assert (parser.base_url, parser.model, parser.max_retries, parser.api_key) == (
        "http://gpu-2:8000/v1",
        "qwen2.5-7b-instruct",
        4,
        "sk-shared",
    )
    assert parser.dedicated
    judge = settings.role("judge")
    assert (judge.structured_output, judge.temperature, judge.model) == ("json_schema", 0.3, "deepseek-v3")


@pytest.mark.parametrize(
    ("env", "variable"),
    [
        ({"LLM_TIMEOUT": "soon"}, "LLM_TIMEOUT"),
        ({"LLM_TIMEOUT": "0"}, "LLM_TIMEOUT"),
        ({"LLM_SQL_GENERATOR_MAX_RETRIES": "-1"}, "LLM_SQL_GENERATOR_MAX_RETRIES"),
        ({"LLM_JUDGE_STRUCTURED_OUTPUT": "xml"}, "LLM_JUDGE_STRUCTURED_OUTPUT"),
        ({"LLM_PROVIDER": "anthropic"}, "LLM_PROVIDER"),
        ({"LLM_PROMPT_TOKEN_BUDGET": "0"}, "LLM_PROMPT_TOKEN_BUDGET"),
        ({"LLM_QST_PARSER_PROMPT_TOKEN_BUDGET": "4k"}, "LLM_QST_PARSER_PROMPT_TOKEN_BUDGET"),
    ],
)
def test_invalid_values_name_the_variable_to_fix(env: dict[str, str], variable: str) -> None:
    with pytest.raises(LlmConfigurationError, match=variable):
        LlmSettings.from_mapping(env)


def test_the_prompt_token_budget_fits_a_4k_context_by_default_and_is_set_per_role() -> None:
    default = LlmSettings.from_mapping({}).role("sql_generator").prompt_token_budget
    assert default == DEFAULT_PROMPT_TOKEN_BUDGET and default + 1000 <= 4096  # room for the answer
    settings = LlmSettings.from_mapping(
        {"LLM_PROMPT_TOKEN_BUDGET": "12000", "LLM_QST_PARSER_PROMPT_TOKEN_BUDGET": "2500"}
    )
    assert settings.role("sql_generator").prompt_token_budget == 12000
    assert settings.role("qst_parser").prompt_token_budget == 2500


def test_unknown_role_is_refused_with_the_known_roles() -> None:
    with pytest.raises(LlmConfigurationError, match="reverse_question_writer"):
        LlmSettings.from_mapping({}).role("summariser")


def test_the_api_key_never_appears_in_the_settings_repr() -> None:
    settings = LlmSettings.from_mapping({"LLM_API_KEY": "sk-very-secret"})
    assert "sk-very-secret" not in repr(settings)
    assert "sk-very-secret" not in repr(settings.role("judge"))


def test_build_chat_model_configures_chat_openai_from_the_role_settings() -> None:
    role = LlmSettings.from_mapping(
        {
            "LLM_BASE_URL": "http://127.0.0.1:9/v1",
            "LLM_SQL_GENERATOR_MODEL": "sqlcoder",
            "LLM_API_KEY": "sk-x",
            "LLM_TIMEOUT": "12.5",
            "LLM_MAX_RETRIES": "5",
            "LLM_TEMPERATURE": "0.2",
        }
    ).role("sql_generator")
    model = build_chat_model(role)
    assert isinstance(model, ChatOpenAI)
    assert model.model_name == "sqlcoder"
    assert model.openai_api_base == "http://127.0.0.1:9/v1"
    assert isinstance(model.openai_api_key, SecretStr) and model.openai_api_key.get_secret_value() == "sk-x"
    # The client itself never retries: calling.py does (5 times here), but not after a timeout.
    assert (model.request_timeout, model.max_retries, model.temperature) == (12.5, 0, 0.2)
    assert role.max_retries == 5


def test_a_local_server_needs_no_key_but_a_model_is_required() -> None:
    local = LlmSettings.from_mapping({"LLM_BASE_URL": "http://127.0.0.1:11434/v1", "LLM_MODEL": "qwen2.5:7b"})
    assert isinstance(build_chat_model(local.role("qst_parser")), ChatOpenAI)
    with pytest.raises(LlmConfigurationError, match="LLM_JUDGE_MODEL"):
        build_chat_model(LlmSettings.from_mapping({"LLM_BASE_URL": "http://127.0.0.1:1/v1"}).role("judge"))
    with pytest.raises(LlmConfigurationError, match="LLM_API_KEY"):
        SqlGeneratorRole.from_settings(LlmSettings.from_mapping({"LLM_MODEL": "gpt-x"}).role("sql_generator"))


def test_an_llm_provider_without_a_usable_model_fails_at_start_up_naming_the_variables() -> None:
    with pytest.raises(LlmConfigurationError) as raised:
        LlmSettings.from_mapping({"LLM_PROVIDER": "openai", "LLM_BASE_URL": "http://127.0.0.1:1/v1"})
    assert "LLM_SQL_GENERATOR_MODEL" in str(raised.value) and "LLM_JUDGE_MODEL" in str(raised.value)
    with pytest.raises(LlmConfigurationError, match="set LLM_API_KEY"):
        LlmSettings.from_mapping({"LLM_PROVIDER": "openai", "LLM_MODEL": "m"})
    configured = LlmSettings.from_mapping({"LLM_PROVIDER": "openai", "LLM_MODEL": "m", "LLM_API_KEY": "sk"})
    assert configured.uses_llm


def test_django_settings_read_the_role_settings_from_the_environment(tmp_path: Path) -> None:
    env = {
        **os.environ,
        "VERISCREEN_DATA_DIR": str(tmp_path),
        "LLM_PROVIDER": "openai",
        "LLM_MODEL": "deepseek-v3",
        "LLM_API_KEY": "sk-test",
        "LLM_QST_PARSER_MODEL": "qwen2.5-7b-instruct",
        "LLM_JUDGE_STRUCTURED_OUTPUT": "json_mode",
    }
    script = (
        "from django.conf import settings as s; r = s.LLM_SETTINGS.role; "
        "print(s.LLM_PROVIDER, r('sql_generator').model, r('qst_parser').model, r('judge').structured_output)"
    )
    completed = subprocess.run(
        [sys.executable, "-c", f"import django; django.setup(); {script}"],
        env=env | {"DJANGO_SETTINGS_MODULE": "backend.project.settings"},
        cwd=Path(__file__).resolve().parents[3],
        capture_output=True,
        text=True,
        check=True,
    )
    assert completed.stdout.split() == ["openai", "deepseek-v3", "qwen2.5-7b-instruct", "json_mode"]


def test_on_failure_defaults_per_role_shared_value_and_override() -> None:
    defaults = LlmSettings.from_mapping({})
    assert {role: defaults.role(role).on_failure for role in ROLES} == {
        "sql_generator": "builtin",
        "qst_parser": "builtin",
        "paradigm_adapter": "builtin",
        "reverse_question_writer": "fail",
        "judge": "fail",
    }
    settings = LlmSettings.from_mapping({"LLM_ON_FAILURE": "fail", "LLM_JUDGE_ON_FAILURE": "builtin"})
    assert settings.role("sql_generator").on_failure == "fail"
    assert settings.role("judge").on_failure == "builtin"
    assert not settings.role("judge").dedicated  # what to do on failure is no endpoint of its own
    with pytest.raises(LlmConfigurationError, match=r"LLM_SQL_GENERATOR_ON_FAILURE='retry'.*builtin, fail"):
        LlmSettings.from_mapping({"LLM_SQL_GENERATOR_ON_FAILURE": "retry"})
