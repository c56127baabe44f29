-- 22_dynamic_compressed: 20_dynamic with compression = on on its indexes (the
-- index of the segment-split test is plain in both).
\set dyn_opts ', compression = on'
\i sql/20_dynamic.sql
\unset dyn_opts
