"""Write requirements.lock: the server's runtime dependencies, pinned to the versions
installed in this environment (the one the tests ran in), test tools left out.

    .venv/bin/python deploy/lock.py > requirements.lock      (make lock)

It walks the `Requires-Dist` of the installed `deadwood` distribution (no extras) and of each
dependency in turn, taking each one's installed version. The Dockerfile installs from it.
"""

from __future__ import annotations

import re
import sys
from importlib import metadata

_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")


def closure(root: str) -> dict[str, str]:
    found: dict[str, str] = {}
    todo = [root]
    while todo:
        name = todo.pop()
        try:
            dist = metadata.distribution(name)
        except metadata.PackageNotFoundError:
            continue  # an optional dependency of a platform or Python we do not run
        key = dist.metadata["Name"].lower().replace("_", "-")
        if key in found:
            continue
        found[key] = dist.version
        for requirement in dist.requires or []:
            if "extra ==" in requirement:
                continue
            marker = requirement.split(";", 1)[1] if ";" in requirement else ""
            if marker and not _marker_holds(marker):
                continue
            match = _NAME.match(requirement)
            if match:
                todo.append(match.group(0))
    found.pop(root, None)
    return found


def _marker_holds(marker: str) -> bool:
    from packaging.markers import Marker

    return Marker(marker).evaluate()


def main() -> int:
    pins = closure("deadwood")
    print("# The server's runtime environment, pinned (deploy/lock.py; `make lock` rewrites it).")
    print(f"# Python {sys.version_info.major}.{sys.version_info.minor}, {sys.platform}.")
    for name in sorted(pins):
        print(f"{name}=={pins[name]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
