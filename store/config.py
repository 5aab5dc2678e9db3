"""One way to build the match service: `build_service(ServiceConfig.from_env())`.

The API (api/__init__.py), the workers (workers/connection.py, workers/run.py) and the
reconciler's command line all build their service here, so every setting means the same
everywhere (README, "Configuration"):

    REDIS_URL               the event store (default redis://127.0.0.1:6379/0)
    QUEUE_URL               the RQ queue's Redis (default: the event store; required with a
                            cluster)
    DEADWOOD_REDIS_CLUSTER  1: the event store is a Redis Cluster
    DEADWOOD_TOKEN_PEPPER   keys the seat-token hashes (store/connection.py, pepper_from_env)
    DEADWOOD_DURABILITY     os | fsync | replica, with DEADWOOD_REPLICA_WAIT_MS (durability.py)
    DEADWOOD_ARCHIVE_DIR    where retired matches are kept (default var/archive; archive.py)

The environment is read in `ServiceConfig.from_env` only; a caller with settings of its own
(the app's config, a job's connection) passes them over the environment's.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import redis

from store.archive import Archive, archive_dir_from_env
from store.connection import (
    DEFAULT_URL,
    ConfigError,
    cluster_enabled,
    pepper_from_env,
    redis_url,
    store_client,
)
from store.durability import Durability, durability_from_env
from store.service import MatchService


@dataclass(frozen=True)
class ServiceConfig:
    """Everything a MatchService is built from."""

    redis_url: str = DEFAULT_URL
    queue_url: str | None = None  # None: the event store's server
    cluster: bool = False
    pepper: bytes = b"dev-pepper"
    durability: Durability = field(default_factory=Durability)
    archive_dir: Path = Path("var/archive")
    max_connections: int | None = None  # a bounded (blocking) pool for the store's client
    snapshot_every: int = 64
    keep_every: int = 256

    @classmethod
    def from_env(cls, *, allow_dev: bool = False, **settings: Any) -> ServiceConfig:
        """The settings the environment names; `settings` (fields of this class, None
        meaning "the environment's") take their place. `allow_dev`: the development pepper
        stands in for an unset one (pepper_from_env)."""
        config = cls(
            redis_url=redis_url(),
            queue_url=os.environ.get("QUEUE_URL") or None,
            cluster=cluster_enabled(),
            pepper=pepper_from_env(allow_dev=allow_dev),
            durability=durability_from_env(),
            archive_dir=archive_dir_from_env(),
        )
        return replace(config, **{k: v for k, v in settings.items() if v is not None})


def build_service(config: ServiceConfig, *, store: Any = None, queue: Any = None) -> MatchService:
    """The service `config` describes; `store` and `queue` are clients already made (a
    worker's job connection) to use instead of new ones."""
    if store is None:
        store = store_client(
            config.redis_url, cluster=config.cluster, max_connections=config.max_connections
        )
    if queue is None:
        queue = _queue_client(config, store)
    return MatchService(
        store,
        queue_redis=queue,
        pepper=config.pepper,
        snapshot_every=config.snapshot_every,
        keep_every=config.keep_every,
        durability=config.durability,
        archive=Archive(config.archive_dir),
    )


def _queue_client(config: ServiceConfig, store: Any) -> Any:
    """The queue's client: the store's own on one server, else one of QUEUE_URL (RQ needs
    an ordinary Redis, so a cluster needs it)."""
    if config.queue_url is None or config.queue_url == config.redis_url:
        if config.cluster:
            raise ConfigError("DEADWOOD_REDIS_CLUSTER=1 needs QUEUE_URL: an ordinary Redis for RQ")
        return store
    return redis.Redis.from_url(config.queue_url)
