# Shared by the scripts that run a fleet on loopback (scripts/fleetload.sh,
# .ci/fleet-inspector.sh): Debian's redis-server as the bus, one fleet
# secret, haproxy round robin per request with no affinity. Source it after
# cd to the repository root; the caller owns PIDS (an array) and kills them
# on exit.

# free_port prints a free loopback TCP port.
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# start_redis DIR: a redis-server without persistence on a free port;
# sets REDIS_URL. Its log is DIR/redis.log.
start_redis() {
  local port
  port=$(free_port)
  redis-server --port "$port" --bind 127.0.0.1 --save "" --appendonly no >"$1/redis.log" 2>&1 &
  PIDS+=("$!")
  REDIS_URL="redis://127.0.0.1:$port/0"
}

# fleet_keys FILE: a fresh 32-byte fleet secret, readable by the owner only.
fleet_keys() {
  (umask 077 && head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$1" && echo >>"$1")
}

# serving_url LOG PID: waits until the `mcp-wasm serve --http` writing LOG
# says where it serves and prints that URL; fails if PID exits first or
# nothing comes within two minutes.
serving_url() {
  local url=""
  for _ in $(seq 1 600); do
    url=$(sed -n 's/.*serving MCP on \(http:[^ ]*\).*/\1/p' "$1" | head -1)
    [ -n "$url" ] && { echo "$url"; return 0; }
    kill -0 "$2" 2>/dev/null || { echo "serve exited:" >&2; cat "$1" >&2; return 1; }
    sleep 0.2
  done
  echo "serve did not start:" >&2
  cat "$1" >&2
  return 1
}

# start_haproxy DIR MAXCONN URL...: haproxy on a free port balancing /mcp
# over the replicas at URL... (each http://HOST:PORT/mcp) round robin,
# health-checked on /healthz; waits until it answers and sets LB_URL.
start_haproxy() {
  local dir=$1 maxconn=$2 backends="" i=0 url hostport port
  shift 2
  for url in "$@"; do
    i=$((i + 1))
    hostport=${url#http://}
    backends+="  server r$i ${hostport%/mcp} check inter 1s"$'\n'
  done
  port=$(free_port)
  cat >"$dir/haproxy.cfg" <<CFG
global
  maxconn $maxconn
defaults
  mode http
  retries 3
  option redispatch
  timeout connect 5s
  timeout client 1h
  timeout server 1h
frontend mcp
  bind 127.0.0.1:$port
  default_backend replicas
backend replicas
  balance roundrobin
  option httpchk
  http-check send meth GET uri /healthz ver HTTP/1.1 hdr Host localhost
$backends
CFG
  haproxy -db -f "$dir/haproxy.cfg" >"$dir/haproxy.log" 2>&1 &
  PIDS+=("$!")
  for _ in $(seq 1 100); do
    curl -fs -H 'Host: localhost' "http://127.0.0.1:$port/healthz" >/dev/null && break
    sleep 0.2
  done
  LB_URL="http://127.0.0.1:$port/mcp"
}
