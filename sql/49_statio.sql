-- pg_statio's index reads are blocks fetched minus blocks hit: every buffer
-- the index pins must count as a fetch, hits included (the metapage and the
-- pending tail are pinned through ReadRecentBuffer on each rescan).
CREATE TABLE sio (k int8, v int4);
INSERT INTO sio SELECT g * 3, g FROM generate_series(1, 20000) g;
CREATE INDEX sio_k ON sio USING learned (k);
INSERT INTO sio SELECT g * 3 + 1, g FROM generate_series(1, 50) g;   -- pending entries
CREATE TABLE sio_probe AS SELECT g * 7 AS k FROM generate_series(1, 2000) g;
ANALYZE sio, sio_probe;
SET enable_hashjoin = off; SET enable_mergejoin = off; SET enable_bitmapscan = off;
SET enable_memoize = off; SET enable_material = off; SET enable_seqscan = off;
-- the probes that find a row
SELECT count(*) AS found FROM sio_probe p JOIN sio s ON s.k = p.k \gset
SELECT pg_stat_force_next_flush();
SELECT pg_stat_get_blocks_fetched('sio_k'::regclass) AS fetched0,
       pg_stat_get_blocks_hit('sio_k'::regclass) AS hit0 \gset
SELECT count(*), sum(s.v) FROM sio_probe p JOIN sio s ON s.k = p.k;
SELECT pg_stat_force_next_flush();
SELECT pg_stat_clear_snapshot();
-- at least one fetch per probe that finds a row (a probe of an absent key
-- may read no page: the window the scan kept of a compressed page shows
-- the key absent, scan.c's near_probe), and never more hits than fetches
SELECT pg_stat_get_blocks_fetched('sio_k'::regclass) - :fetched0 >= :found AS fetched_per_probe,
       pg_stat_get_blocks_hit('sio_k'::regclass) - :hit0 >= :found AS hits_per_probe,
       pg_stat_get_blocks_fetched('sio_k'::regclass) - :fetched0
         >= pg_stat_get_blocks_hit('sio_k'::regclass) - :hit0 AS reads_not_negative,
       idx_blks_read >= 0 AS statio_reads_not_negative
  FROM pg_statio_user_indexes WHERE indexrelname = 'sio_k';
RESET ALL;
DROP TABLE sio, sio_probe;
