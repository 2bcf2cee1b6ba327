#!/usr/bin/env bash
# atomcheck check-history against Porcupine (github.com/anishathalye/porcupine), side by
# side on one machine: Porcupine's 108 test histories (102 Jepsen etcd logs with the
# verdicts its tests expect, 6 kv logs), then synthetic histories of 10^5 operations from
# bench/gen_history.cpp. Prints the verdicts' agreement and the CPU time (user + sys) of
# each tool, and the ratio ours / Porcupine's (docs/linearizability.md, "Recorded
# histories against Porcupine").
#
# How Porcupine is built: from its source (PORCUPINE_SRC, a checkout of its repository;
# else it is cloned at PORCUPINE_COMMIT) with Debian's Go (apt-get install golang-go,
# Go 1.19): bench/porcupine_driver/main.go, a small main package that reads the files and
# calls porcupine.CheckEventsTimeout, is copied into a scratch module whose go.mod replaces
# github.com/anishathalye/porcupine by that source, and built with `go build` (no network
# needed when PORCUPINE_SRC is given).
#
# bench/check_history_vs_porcupine.sh [BUILD_DIR]   (default build; needs the targets
#   atomcheck and gen_history)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
build=$(cd "${1:-$root/build}" && pwd)
atomcheck=$build/atomcheck
gen=$build/bench/gen_history
PORCUPINE_COMMIT=${PORCUPINE_COMMIT:-55508eb201b314c218d7e8412c3ea4b9499a5f53}
TIMEOUT=${TIMEOUT:-30}
OPS=${OPS:-100000}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

src=${PORCUPINE_SRC:-}
if [ -z "$src" ]; then
  git clone -q https://github.com/anishathalye/porcupine "$work/porcupine"
  git -C "$work/porcupine" checkout -q "$PORCUPINE_COMMIT"
  src=$work/porcupine
fi
mkdir -p "$work/driver"
cp "$here/porcupine_driver/main.go" "$work/driver/"
cat > "$work/driver/go.mod" <<MOD
module atomcheck.bench/porcupine-driver

go 1.16

require github.com/anishathalye/porcupine v0.0.0

replace github.com/anishathalye/porcupine => $(cd "$src" && pwd)
MOD
(cd "$work/driver" && GOFLAGS=-mod=mod GOPROXY=off go build -o porcupine-driver .)
porcupine=$work/driver/porcupine-driver

# CPU seconds (user + sys) of a command; its stdout goes to $2.
cpu() {
  local out=$1
  shift
  /usr/bin/time -f "%U %S" -o "$work/time" "$@" > "$out" 2> /dev/null || true
  awk 'END {printf "%.3f", $1 + $2}' "$work/time"
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else printf "-" }'; }

echo "$(nproc)-core $(uname -m), $(. /etc/os-release && echo "$PRETTY_NAME"), $(go version | awk '{print $3}'), Porcupine ${PORCUPINE_COMMIT:0:7}"

# 1. Porcupine's test histories.
data=$root/tests/data/porcupine
files=()
while read -r n want; do files+=("$data/jepsen/$(printf 'etcd_%03d.log' "$n")"); done < "$data/etcd-expected.txt"
for kv in c01-ok c01-bad c10-ok c10-bad c50-ok c50-bad; do files+=("$data/kv/$kv.txt"); done
ours_cpu=$(cpu "$work/ours.txt" "$atomcheck" check-history --timeout "$TIMEOUT" "${files[@]}")
theirs_cpu=$(cpu "$work/theirs.txt" "$porcupine" -timeout "${TIMEOUT}s" "${files[@]}")
agree=0 expected=0 decided=0
declare -A want_of
while read -r n want; do want_of[$(printf 'etcd_%03d.log' "$n")]=$want; done < "$data/etcd-expected.txt"
for kv in c01-ok c10-ok c50-ok; do want_of[$kv.txt]=true; done
for kv in c01-bad c10-bad c50-bad; do want_of[$kv.txt]=false; done
for f in "${files[@]}"; do
  ours=$(grep -F "$f: " "$work/ours.txt" | sed 's/^[^:]*: //' | awk '{print ($1 == "linearizable") ? "true" : ($1 == "not") ? "false" : "undecided"}')
  theirs=$(grep -F "$f " "$work/theirs.txt" | awk '{print ($2 == "Ok") ? "true" : ($2 == "Illegal") ? "false" : "undecided"}')
  [ "$ours" != undecided ] && decided=$((decided + 1))
  [ "$ours" = "$theirs" ] && agree=$((agree + 1))
  [ "$ours" = "${want_of[$(basename "$f")]}" ] && expected=$((expected + 1))
done
echo
echo "| histories | decided by atomcheck | same verdict as Porcupine | as Porcupine's tests expect | CPU atomcheck (s) | CPU Porcupine (s) | ratio |"
echo "|---|---|---|---|---|---|---|"
echo "| Porcupine's test_data (102 etcd + 6 kv) | ${decided}/${#files[@]} | ${agree}/${#files[@]} | ${expected}/${#files[@]} | $ours_cpu | $theirs_cpu | $(ratio "$ours_cpu" "$theirs_cpu") |"

# 2. Synthetic histories of $OPS operations.
echo
echo "| synthetic ($OPS operations) | atomcheck | Porcupine | CPU atomcheck (s) | CPU Porcupine (s) | ratio |"
echo "|---|---|---|---|---|---|"
row() {
  local name=$1 spec=$2 pspec=$3
  shift 3
  "$gen" --ops="$OPS" "$@" > "$work/h.jsonl"
  local a p
  a=$(cpu "$work/a.txt" "$atomcheck" check-history --spec "$spec" --timeout "$TIMEOUT" "$work/h.jsonl")
  p=$(cpu "$work/p.txt" "$porcupine" -spec "$pspec" -timeout "${TIMEOUT}s" "$work/h.jsonl")
  local va vp
  va=$(sed 's/^[^:]*: //; s/ (.*//' "$work/a.txt")
  vp=$(awk '{print ($2 == "Ok") ? "linearizable" : ($2 == "Illegal") ? "not linearizable" : "undecided (" ENVIRON["TIMEOUT"] " s)"}' "$work/p.txt")
  echo "| $name | $va | $vp | $a | $p | $(ratio "$a" "$p") |"
}
row "register" cas-register register --family=register
row "register, not linearizable" cas-register register --family=register --bad
row "register, 0.5% never return" cas-register register --family=register --pending=10
row "register, 0.5% never return, not linearizable" cas-register register --family=register --pending=10 --bad
row "kv, 10 clients x 100 keys" kv kv --family=kv
row "kv, 10 clients x 100 keys, not linearizable" kv kv --family=kv --bad
row "queue, distinct values" queue queue --family=queue
row "queue, distinct values, not linearizable" queue queue --family=queue --bad
row "stack, distinct values" stack stack --family=stack
row "stack, distinct values, not linearizable" stack stack --family=stack --bad
