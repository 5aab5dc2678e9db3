"""One wiring: ServiceConfig reads the environment in one place, build_service builds from it
(the API, the workers and the reconciler's command line all use it)."""

from __future__ import annotations

from pathlib import Path

import pytest
import redis

from domain.events import Event
from store import codec
from store.config import ServiceConfig, build_service
from store.connection import ConfigError, InsecurePepper
from store.durability import Durability

ENV = (
    "REDIS_URL",
    "QUEUE_URL",
    "DEADWOOD_REDIS_CLUSTER",
    "DEADWOOD_TOKEN_PEPPER",
    "DEADWOOD_DURABILITY",
    "DEADWOOD_REPLICA_WAIT_MS",
    "DEADWOOD_ARCHIVE_DIR",
    "DEADWOOD_DEV",
)


@pytest.fixture
def bare_env(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    for name in ENV:
        monkeypatch.delenv(name, raising=False)
    return monkeypatch


def test_the_defaults_are_readmes(bare_env: pytest.MonkeyPatch) -> None:
    config = ServiceConfig.from_env(allow_dev=True)
    assert config.redis_url == "redis://127.0.0.1:6379/0"
    assert config.queue_url is None and config.cluster is False
    assert config.pepper == b"dev-pepper"
    assert config.durability == Durability() and config.archive_dir == Path("var/archive")


def test_the_environment_is_read_and_settings_take_its_place(
    bare_env: pytest.MonkeyPatch,
) -> None:
    bare_env.setenv("REDIS_URL", "redis://store:6379/0")
    bare_env.setenv("QUEUE_URL", "redis://queue:6379/0")
    bare_env.setenv("DEADWOOD_TOKEN_PEPPER", "s3cret")
    bare_env.setenv("DEADWOOD_DURABILITY", "replica")
    bare_env.setenv("DEADWOOD_ARCHIVE_DIR", "/tmp/a")
    config = ServiceConfig.from_env(redis_url="redis://other:1/0", queue_url=None)
    assert config.redis_url == "redis://other:1/0"  # a setting over the environment
    assert config.queue_url == "redis://queue:6379/0"  # None: the environment's
    assert config.pepper == b"s3cret" and config.durability.level == "replica"
    assert config.archive_dir == Path("/tmp/a")


def test_no_pepper_is_refused_outside_dev_mode(bare_env: pytest.MonkeyPatch) -> None:
    with pytest.raises(InsecurePepper):
        ServiceConfig.from_env()


def test_a_cluster_needs_a_queue_url() -> None:
    with pytest.raises(ConfigError, match="QUEUE_URL"):
        build_service(ServiceConfig(cluster=True), store=object())


def test_one_server_shares_its_client_with_the_queue(redis_url: str) -> None:
    service = build_service(ServiceConfig(redis_url=redis_url, pepper=b"p"))
    assert service.queues.connection is service.redis
    assert service.store.jobs_in_transaction and service.ping()


def test_a_queue_elsewhere_gets_its_own_client(redis_url: str) -> None:
    queue_url = redis_url.rsplit("/", 1)[0] + "/1"
    service = build_service(ServiceConfig(redis_url=redis_url, queue_url=queue_url))
    assert isinstance(service.queues.connection, redis.Redis)
    assert service.queues.connection is not service.redis
    assert not service.store.jobs_in_transaction


def test_stored_forms_encode_once_what_encode_would_write() -> None:
    """The append writes the text `stored_forms` made: the same as encoding the event anew,
    and the event is the one reading it back gives."""
    events, texts = codec.stored_forms([Event("CardDiscarded", {"seat": 2, "card": "TS"})])
    fresh = codec.encode(events[0], "t", "x")
    assert codec.encode(events[0], "t", "x", texts[0]) == fresh
    fields: dict[bytes | str, bytes | str] = {key: text for key, text in fresh.items()}
    assert codec.decode("0-1", fields).event == events[0]
