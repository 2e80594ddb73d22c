"""The key layout and the Lua scripts of the Redis store (issue 13, "Fleets on
scrapy-redis"). Constants only: :mod:`.stores._redis` and :mod:`.stores._redis_fleet` run
them.

Every script runs atomically in the server, so each state change below is
all or nothing, whichever worker runs it and whichever worker dies. Times
that several machines compare (lease deadlines, watch deadlines, turns) are
read from the server's clock (``TIME``), never from a worker's: this needs
Redis 5 or later, where a script that reads ``TIME`` may write (its effects
are replicated, not the script). Redis Cluster is not supported: ADOPT,
HANDOVER and CLEAR build key names from their arguments (scrapy-redis does
not support Cluster either).

Keys (``P`` is :data:`KEY_PREFIX`, ``<origin>`` is ``scheme://host:port``,
``<ns>`` the scrapy-redis queue key, ``"<spider>:requests"`` by default)::

    P record:<origin>     string  Record.encode()            PX store TTL, reset on each put
    P lock:<origin>       string  "<n>:<nonce>" (the lease)  PX lease, renewed every lease/3
    P fence:<origin>      int     last <n> granted           PX fetch bound + lease; one
                                                             lease once released
    P held:<ns>:<origin>  zset    b"<priority>|" + request,  PX store TTL, reset on each hold
                                  score = since (ms, wall)
    P heldidx:<ns>        zset    <origin>, score = watch    PX store TTL, reset on each hold
                                  deadline (ms, server clock)
    P next:<origin>       string  next allowed start (ms,    PX until then + 1 s
                                  server clock)
    P probe               string  empty (the health probe's   PX 1 s
                                  write)

The lock's value stays an opaque string, so that an older release of this
package (``SET NX``, then a release that deletes the key only if it still
holds its value) works against it.
"""

from __future__ import annotations

#: Every key starts with it; ``v1`` is the layout of the keys (a record's
#: own format version is inside its value).
KEY_PREFIX = "robotstxt_rfc:v1:"

#: The prefix of the scripts that read the server's clock: ``now`` in ms.
NOW = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
"""

#: KEYS: lock, fence. ARGV: lease_ms, nonce, fence_ttl_ms.
#: The token ``"<n>:<nonce>"``, ``n`` one more than the last one granted for
#: the origin, or false when another holder has the lease. A retry after a
#: lost reply finds its own nonce and gets the same token.
LEASE_ACQUIRE = """
local cur = redis.call('GET', KEYS[1])
if cur then
  if string.sub(cur, -string.len(ARGV[2]) - 1) == ':' .. ARGV[2] then return cur end
  return false
end
local n = redis.call('INCR', KEYS[2])
redis.call('PEXPIRE', KEYS[2], ARGV[3])
local token = n .. ':' .. ARGV[2]
redis.call('SET', KEYS[1], token, 'PX', ARGV[1])
return token
"""

#: KEYS: lock, fence. ARGV: token, lease_ms, fence_ttl_ms.
#: 1 when the lease is extended, 0 when it is no longer ours (it lapsed).
LEASE_RENEW = """
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
redis.call('PEXPIRE', KEYS[2], ARGV[3])
return 1
"""

#: KEYS: lock, fence. ARGV: token, fence_linger_ms.
#: Deletes the lock only while it holds our token; the fence stays one
#: lease more, so that a late write of a lapsed holder is still refused.
LEASE_RELEASE = """
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('DEL', KEYS[1])
redis.call('PEXPIRE', KEYS[2], ARGV[2])
return 1
"""

#: KEYS: record, fence, lock. ARGV: token ('' = not under a lease), value,
#: record_ttl_ms. 0 (refused) when a later lease was granted since ours, or
#: another holder has the lock now: our lease lapsed and was taken over.
PUT_FENCED = """
if ARGV[1] ~= '' then
  local n = string.match(ARGV[1], '^(%d+):')
  local cur = redis.call('GET', KEYS[2])
  if cur and cur ~= n then return 0 end
  local holder = redis.call('GET', KEYS[3])
  if holder and holder ~= ARGV[1] then return 0 end
end
redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
return 1
"""

#: KEYS: held, index. ARGV: member, origin, since_ms, watch_ms, held_ttl_ms.
#: Holds one request and watches its origin for at least watch_ms more;
#: returns how many requests the origin holds.
HOLD = (
    NOW
    + """
redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[5])
local deadline = now + tonumber(ARGV[4])
local cur = redis.call('ZSCORE', KEYS[2], ARGV[2])
if (not cur) or tonumber(cur) < deadline then
  redis.call('ZADD', KEYS[2], deadline, ARGV[2])
end
redis.call('PEXPIRE', KEYS[2], ARGV[5])
return redis.call('ZCARD', KEYS[1])
"""
)

#: KEYS: held, index, queue. ARGV: origin, max_score ('+inf' = all), batch,
#: kind. Moves up to batch held requests, oldest first, into the
#: scrapy-redis queue, as its ``push`` would have written them; kind is the
#: queue class's layout (``redis_fleet.QUEUE_LAYOUTS``): 'priority' (ZADD
#: queue -priority request) or 'list' (LPUSH queue request). Each member
#: leaves the held set in the same atomic step that queues it: it is queued
#: exactly once. Returns {moved, left}; an origin with nothing left is no
#: longer watched.
RELEASE = """
local kind = ARGV[4]
if kind ~= 'priority' and kind ~= 'list' then
  return redis.error_reply('unknown queue kind: ' .. kind)
end
local items = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[2], 'LIMIT', 0, tonumber(ARGV[3]))
for _, m in ipairs(items) do
  local bar = string.find(m, '|', 1, true)
  local blob = string.sub(m, bar + 1)
  if kind == 'priority' then
    redis.call('ZADD', KEYS[3], 0 - tonumber(string.sub(m, 1, bar - 1)), blob)
  else
    redis.call('LPUSH', KEYS[3], blob)
  end
  redis.call('ZREM', KEYS[1], m)
end
local left = redis.call('ZCARD', KEYS[1])
if left == 0 then redis.call('ZREM', KEYS[2], ARGV[1]) end
return {#items, left}
"""

#: KEYS: index. ARGV: watch_ms, limit, held key prefix ("P held:<ns>:").
#: The orphans: origins whose watch deadline passed (their worker died, or
#: handed them over). Each one goes to exactly one caller, which watches it
#: from then on; an entry whose held set is gone (released, or expired) is
#: forgotten.
ADOPT = (
    NOW
    + """
local found = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'LIMIT', 0, tonumber(ARGV[2]))
local adopted = {}
for _, o in ipairs(found) do
  if redis.call('EXISTS', ARGV[3] .. o) == 1 then
    redis.call('ZADD', KEYS[1], now + tonumber(ARGV[1]), o)
    adopted[#adopted + 1] = o
  else
    redis.call('ZREM', KEYS[1], o)
  end
end
return adopted
"""
)

#: KEYS: index. ARGV: watch_ms, origin... Extends the watch of the origins
#: still listed; returns those no longer listed (another worker released
#: them).
WATCH = (
    NOW
    + """
local gone = {}
for i = 2, #ARGV do
  if redis.call('ZSCORE', KEYS[1], ARGV[i]) then
    redis.call('ZADD', KEYS[1], now + tonumber(ARGV[1]), ARGV[i])
  else
    gone[#gone + 1] = ARGV[i]
  end
end
return gone
"""
)

#: KEYS: index. ARGV: held key prefix, origin... WATCH with a deadline of 0:
#: the origins still listed become orphans at once, for the next ADOPT of
#: any worker. Returns how many requests they hold.
HANDOVER = """
local count = 0
for i = 2, #ARGV do
  if redis.call('ZSCORE', KEYS[1], ARGV[i]) then
    redis.call('ZADD', KEYS[1], 0, ARGV[i])
    count = count + redis.call('ZCARD', ARGV[1] .. ARGV[i])
  end
end
return count
"""

#: KEYS: index. ARGV: held key prefix. Deletes the index and every held set
#: it lists (``SCHEDULER_FLUSH_ON_START``); returns how many requests they
#: held.
CLEAR = """
local count = 0
for _, o in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do
  count = count + redis.call('ZCARD', ARGV[1] .. o)
  redis.call('DEL', ARGV[1] .. o)
end
redis.call('DEL', KEYS[1])
return count
"""

#: KEYS: next. ARGV: spacing_ms, force ('1': take the turn now, e.g. the
#: robots.txt fetch itself). 0 when the turn is ours (the next one is
#: spacing_ms later), else the ms to wait before asking again.
RESERVE = (
    NOW
    + """
local spacing = tonumber(ARGV[1])
local nxt = tonumber(redis.call('GET', KEYS[1]) or '0')
if nxt > now and ARGV[2] ~= '1' then return nxt - now end
local at = math.max(nxt, now) + spacing
redis.call('SET', KEYS[1], at, 'PX', at - now + 1000)
return 0
"""
)
