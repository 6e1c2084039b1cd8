"""Models that share one HTTP client (as eval's questions do): one pool, closed by its owner."""

from __future__ import annotations

from agent.config import Config, build_model, shared_http
from agent.models.base import Notice
from agent.models.base import Reply as ModelReply
from agent.models.openai.model import OpenAIModel
from tests.agent.openai_support import KEY, run
from tests.chatserver import MODEL, ChatServer, Reply


def openai_model(config: Config, **kw: object) -> OpenAIModel:
    model = build_model(config, **kw)  # type: ignore[arg-type]
    assert isinstance(model, OpenAIModel)
    return model


def test_models_sharing_a_client_share_its_connections(chat_server: ChatServer) -> None:
    config = Config(model=MODEL, base_url=chat_server.base_url, api_key=KEY)
    chat_server.push(*[Reply(content="Hello")] * 3)
    with shared_http(config) as http:
        first, second = openai_model(config, http=http), openai_model(config, http=http)
        assert isinstance(run(first)[-1], ModelReply)
        first.close()  # its own end: the shared client serves the others on
        assert isinstance(run(second)[-1], ModelReply)
        third = openai_model(config, http=http)
        assert isinstance(run(third)[-1], ModelReply)
    assert len(chat_server.chat_connections) == 1  # the probes go at once, on their own


def test_a_model_the_listing_lacks_is_warned_of_once_per_shared_client(
    chat_server: ChatServer,
) -> None:
    chat_server.models = {"object": "list", "data": [{"id": "other-model"}]}
    config = Config(model=MODEL, base_url=chat_server.base_url, api_key=KEY)
    chat_server.push(*[Reply(content="Hello")] * 3)

    def notices(model: OpenAIModel) -> list[Notice]:
        try:
            return [chunk for chunk in run(model) if isinstance(chunk, Notice)]
        finally:
            model.close()  # a shared client stays open for the others

    with shared_http(config) as http:
        shared = [notices(openai_model(config, http=http)) for _ in range(2)]
    alone = notices(openai_model(config))  # a client of its own: warned again
    warning = Notice(
        f"warning: {chat_server.base_url}/models does not list the model {MODEL!r}; "
        "it lists other-model"
    )
    assert (shared, alone) == ([[warning], []], [warning])


def test_a_model_on_this_machine_needs_no_http_client() -> None:
    with shared_http(Config()) as offline, shared_http(Config(model="script:x.json")) as script:
        assert (offline, script) == (None, None)
