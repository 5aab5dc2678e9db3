# Deadwood: the API and the worker in one image (the command picks the process).
#   docker build -t deadwood .
#   docker run deadwood deadwood api --host 0.0.0.0   (or: deadwood worker)
# compose.yaml runs Redis, the API and workers from it. No test tools are installed: the
# image gets the runtime dependencies pinned in requirements.lock (`make lock`) and the
# package itself (not `.[test]`).
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

WORKDIR /app
COPY requirements.lock ./
RUN pip install -r requirements.lock
COPY pyproject.toml README.md ./
COPY domain ./domain
COPY store ./store
COPY api ./api
COPY workers ./workers
COPY cli ./cli
COPY arena ./arena
COPY deadwood_client ./deadwood_client
RUN pip install --no-deps . && rm -rf /app/*

# A user of its own, no shell login, owning only its data directory.
RUN useradd --system --uid 10001 --home-dir /data --shell /usr/sbin/nologin deadwood \
    && mkdir -p /data/archive /data/metrics && chown -R deadwood /data
USER deadwood
WORKDIR /data

ENV DEADWOOD_HOST=0.0.0.0 \
    DEADWOOD_PORT=8000 \
    DEADWOOD_ARCHIVE_DIR=/data/archive \
    PROMETHEUS_MULTIPROC_DIR=/data/metrics \
    DEADWOOD_LOG_FORMAT=json

EXPOSE 8000
HEALTHCHECK --interval=15s --timeout=3s \
    CMD python -c "import urllib.request as u; u.urlopen('http://127.0.0.1:8000/v1/health/live', timeout=2)" || exit 1
CMD ["deadwood", "api"]
