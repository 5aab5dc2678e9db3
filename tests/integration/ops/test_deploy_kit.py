"""The deployment kit (issue 34), linted: Docker is not on the machine these tests run on, so
the Dockerfile and compose.yaml are parsed and checked here, not built or run."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[3]


def _dockerfile() -> list[tuple[str, str]]:
    """(instruction, arguments) of each Dockerfile instruction, continuations joined."""
    text = re.sub(r"\\\n", " ", (ROOT / "Dockerfile").read_text())
    rows = []
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            word, _, rest = line.partition(" ")
            rows.append((word.upper(), rest.strip()))
    return rows


def _deadwood_help(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "cli", *args, "--help"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
        check=False,
    )


def test_the_image_is_slim_runs_as_a_user_and_has_no_test_tools() -> None:
    rows = _dockerfile()
    assert rows[0][0] == "FROM" and re.fullmatch(r"python:3\.1[1-9]-slim", rows[0][1])
    users = [arg for word, arg in rows if word == "USER"]
    assert users and users[-1] not in ("root", "0"), users
    last_user = max(i for i, (word, _) in enumerate(rows) if word == "USER")
    assert all(word != "RUN" for word, _ in rows[last_user + 1 :])  # nothing runs as root after
    runs = " ".join(arg for word, arg in rows if word == "RUN")
    assert "pip install -r requirements.lock" in runs and "pip install --no-deps ." in runs
    assert "[test]" not in runs
    for tool in ("pytest", "hypothesis", "ruff", "mypy", "schemathesis", "selenium"):
        assert tool not in runs
    copied = [arg.split()[0] for word, arg in rows if word == "COPY"]
    assert "tests" not in copied and "bench" not in copied and "." not in copied
    for source in copied:
        assert (ROOT / source).exists(), source
    cmd = next(arg for word, arg in reversed(rows) if word == "CMD")
    assert cmd == '["deadwood", "api"]'


def test_compose_runs_redis_without_eviction_with_aof_and_the_api_and_workers() -> None:
    compose = yaml.safe_load((ROOT / "compose.yaml").read_text())
    services = compose["services"]
    assert set(services) >= {"redis", "api", "worker"}
    redis_command = services["redis"]["command"]
    assert redis_command[redis_command.index("--maxmemory-policy") + 1] == "noeviction"
    assert redis_command[redis_command.index("--appendonly") + 1] == "yes"
    for name in ("api", "worker"):
        service = services[name]
        assert service["build"] == "."
        assert service["environment"]["REDIS_URL"] == "redis://redis:6379/0"
        assert "DEADWOOD_TOKEN_PEPPER" in service["environment"]
        assert service["depends_on"]["redis"]["condition"] == "service_healthy"
        command = service["command"]
        assert command[0] == "deadwood" and command[1] == name
        done = _deadwood_help(*command[1:2])
        assert done.returncode == 0, done.stderr
        for flag in command[2:]:
            if flag.startswith("--"):
                assert flag in done.stdout, (name, flag)
    assert "/v1/health/ready" in str(services["api"]["healthcheck"]["test"])


def test_the_systemd_units_name_commands_that_exist() -> None:
    for unit in sorted((ROOT / "deploy").glob("*.service")):
        text = unit.read_text()
        start = re.search(r"^ExecStart=\S+/deadwood (\w+)(.*)$", text, re.MULTILINE)
        assert start, unit.name
        done = _deadwood_help(start.group(1))
        assert done.returncode == 0, done.stderr
        for flag in re.findall(r"--[a-z-]+", start.group(2)):
            assert flag in done.stdout, (unit.name, flag)
        assert re.search(r"^User=(?!root$)\w+$", text, re.MULTILINE), unit.name


def test_deadwood_version() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "cli", "--version"], capture_output=True, text=True, check=True
    )
    assert re.fullmatch(r"deadwood \d+\.\d+\.\d+\n", done.stdout)


def test_the_lock_file_pins_every_runtime_dependency_as_pyproject_does() -> None:
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    lines = (ROOT / "requirements.lock").read_text().splitlines()
    locked = dict(line.split("==") for line in lines if line and not line.startswith("#"))
    for requirement in project["dependencies"]:
        name, version = requirement.split("==")
        assert locked.get(name.lower().replace("_", "-")) == version, requirement
    for tool in ("pytest", "hypothesis", "ruff", "mypy", "schemathesis", "selenium"):
        assert tool not in locked


def test_the_sample_dashboard_names_only_metrics_that_exist() -> None:
    import json

    from prometheus_client.metrics import MetricWrapperBase

    from store import metrics

    dashboard = json.loads((ROOT / "deploy" / "grafana-dashboard.json").read_text())
    exprs = " ".join(t["expr"] for p in dashboard["panels"] for t in p["targets"])
    named = set(re.findall(r"deadwood_[a-z_]+", exprs))
    known = {
        family.name
        for metric in vars(metrics).values()
        if isinstance(metric, MetricWrapperBase)
        for family in metric.describe()
    }
    known |= {"deadwood_queue_depth", "deadwood_matches_in_play", "deadwood_workers_live"}
    suffixes = ("_total", "_bucket", "_sum", "_count")
    for name in named:
        base = next((name[: -len(s)] for s in suffixes if name.endswith(s)), name)
        assert base in known or name in known, name
