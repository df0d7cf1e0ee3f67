#!/usr/bin/env bash
# Start Neo4j and the LLM test server, run lint, type checks and the whole test suite, stop both.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=.venv/bin
export KG_RAG_NEO4J__PASSWORD="${KG_RAG_NEO4J__PASSWORD:-kgrag-test-password}"

stop_servers() {
  "$BIN/kg-rag" llm-server stop || true
  "$BIN/kg-rag" neo4j stop || true
}
trap stop_servers EXIT

start=$(date +%s)
"$BIN/kg-rag" neo4j start
"$BIN/kg-rag" llm-server start
echo "servers up in $(( $(date +%s) - start ))s"

"$BIN/ruff" check .
"$BIN/ruff" format --check .
"$BIN/mypy"
"$BIN/pytest" -q "$@"
