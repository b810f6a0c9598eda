# Sourced by the dist tests that kill or signal a rank:
#   rank_pid JOB RANK   prints the pid of the child of mpirun JOB whose environment says it is rank
#                       RANK (OMPI_COMM_WORLD_RANK), or nothing after 5 s of looking.
# grep reads the whole environment (no -q): quitting at the first match could end tr with SIGPIPE,
# which pipefail would count as no match.
rank_pid() {
  local job=$1 rank=$2 pid
  for _ in $(seq 50); do
    for pid in $(pgrep -P "$job"); do
      if tr '\0' '\n' <"/proc/$pid/environ" 2>/dev/null | grep -x "OMPI_COMM_WORLD_RANK=$rank" >/dev/null; then
        echo "$pid"
        return
      fi
    done
    sleep 0.1
  done
}
