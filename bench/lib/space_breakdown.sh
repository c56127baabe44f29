# Sourced by bench/sweep_space.sh and bench/churn_space.sh, with $P set to
# their psql command line.  breakdown IDX prints where the learned index's
# pages go: the static stage (segments, NULL run), the directory, sorted
# runs (data pages, header pages), the unsorted tail, free pages the FSM
# holds, and the rest: pages replaced by flips that wait for the snapshot
# horizon (unreachable, not yet FREE; the FSM is a hint, so this is
# approximate when it is stale).  Needs the pg_freespacemap extension.
breakdown() {
  $P -c "with i as (select * from learned_index_info('$1')),
    r as (select coalesce(sum(pages) filter (where run is not null), 0) as rp,
                 count(*) filter (where run is not null) as rh from learned_index_runs('$1')),
    f as (select count(*) filter (where avail > 0) as fr from pg_freespace('$1'))
    select format('total=%s static=%s directory=%s runs=%s run_headers=%s tail=%s free=%s waiting=%s',
      total_pages, leaf_pages + null_pages, directory_pages, rp, rh, pending_pages - rp, fr,
      total_pages - 1 - leaf_pages - null_pages - directory_pages - pending_pages - rh - fr)
    from i, r, f"
}
