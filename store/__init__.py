"""The Redis event store: streams, codec, snapshots, tokens, idempotency, the match service."""
