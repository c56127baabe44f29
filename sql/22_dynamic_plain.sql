-- 22_dynamic_plain: 20_dynamic with compression = off on its indexes (the
-- index of the segment-split test is plain in both).
\set dyn_opts ', compression = off'
\i sql/20_dynamic.sql
\unset dyn_opts
