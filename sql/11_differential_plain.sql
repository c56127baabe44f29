-- 11_differential_plain: 07_differential with compression = off on every
-- index (so merges write their segments so too), 100 queries a round.
SET ldiff.nq = 100;
SET ldiff.compression = 'off';
\i sql/07_differential.sql
RESET ldiff.compression;
RESET ldiff.nq;
