from collections.abc import Iterator

import pytest

from tests.language.llm.openai_stub import OpenAiStub


@pytest.fixture
def openai_stub() -> Iterator[OpenAiStub]:
    stub = OpenAiStub().start()
    yield stub
    stub.stop()
