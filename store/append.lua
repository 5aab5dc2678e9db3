-- The one atomic append of a match (store/event_store.py). All KEYS share the {match} tag.
-- KEYS: 1 events stream, 2 meta hash, 3 snapshot, 4 idempotency record (or a dummy key),
--   5 the snapshots kept at intervals (sorted set scored by version)
-- ARGV: expected version, tx of the entry at that version ("" = do not check),
--   "1" when KEYS[4] is a real idempotency record key, then n, n * (entry id, c, c field/value
--   args: 10, or 12 with the clock `clk` beside the append's last entry), record ("" none), ttl,
--   m, m * (field, value), snapshot flag ("0" none, "1" latest, "2" kept, "3" both), snapshot,
--   j, j * (argc, argc args)  -- follow-up job commands (single server only)
-- Reply: {"ok", version} | {"conflict", actual, last tx} | {"idem", record}
local expected = tonumber(ARGV[1])
-- A request whose key has a record gets it back first, whatever the version: its twin,
-- appended a moment ago, moved the version (two concurrent keyed creates: one match).
local has_idem = ARGV[3] == '1'
if has_idem then
  local taken = redis.call('GET', KEYS[4])
  if taken then return {'idem', taken} end
end
local last = redis.call('XREVRANGE', KEYS[1], '+', '-', 'COUNT', 1)
local actual, last_tx = 0, ''
if last[1] then
  actual = tonumber(string.match(last[1][1], '^0%-(%d+)$'))
  local fields = last[1][2]
  for i = 1, #fields, 2 do
    if fields[i] == 'tx' then last_tx = fields[i + 1] end
  end
end
if actual ~= expected or (ARGV[2] ~= '' and ARGV[2] ~= last_tx) then
  return {'conflict', actual, last_tx}
end
local i = 4
local n = tonumber(ARGV[i]); i = i + 1
for _ = 1, n do
  local c = tonumber(ARGV[i + 1])
  redis.call('XADD', KEYS[1], ARGV[i], unpack(ARGV, i + 2, i + 1 + c))
  i = i + 2 + c
end
local record, ttl = ARGV[i], ARGV[i + 1]; i = i + 2
if has_idem then redis.call('SET', KEYS[4], record, 'EX', ttl) end
local m = tonumber(ARGV[i]); i = i + 1
if m > 0 then redis.call('HSET', KEYS[2], unpack(ARGV, i, i + 2 * m - 1)) end
i = i + 2 * m
local flag = ARGV[i]
if flag == '1' or flag == '3' then redis.call('SET', KEYS[3], ARGV[i + 1]) end
if flag == '2' or flag == '3' then redis.call('ZADD', KEYS[5], expected + n, ARGV[i + 1]) end
i = i + 2
local j = tonumber(ARGV[i]); i = i + 1
for _ = 1, j do
  local argc = tonumber(ARGV[i])
  redis.call(unpack(ARGV, i + 1, i + argc))
  i = i + 1 + argc
end
return {'ok', expected + n}
