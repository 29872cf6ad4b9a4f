-- SPDX-License-Identifier: LGPL-2.1-or-later
-- gen-db.sql - a generated database for scripts/test-malloc.sh and `secpath bench malloc`:
-- 200k rows through a recursive CTE, two indexes, joins, group by, window functions, text.
create table a (id integer primary key, k integer, s text);
create table b (id integer primary key, a_id integer, v real, note text);
with recursive n(i) as (select 1 union all select i + 1 from n where i < 100000)
insert into a select i, (i * 7919) % 1000, printf('row-%d-%s', i, hex(i * 31)) from n;
with recursive n(i) as (select 1 union all select i + 1 from n where i < 100000)
insert into b select i, (i * 31) % 100000 + 1, (i % 1000) / 7.0, substr('abcdefghijklmnopqrstuvwxyz', i % 26 + 1) || i from n;
create index a_k on a (k);
create index b_a on b (a_id);
select count(*), sum(length(s)) from a;
select k, count(*), max(s) from a group by k order by k limit 5;
select a.k, round(sum(b.v), 3), count(*) from a join b on b.a_id = a.id group by a.k order by 2 desc limit 5;
select id, s, rank() over (partition by k order by id desc) r from a where k < 3 order by k, r limit 6;
select group_concat(note, ',') is not null, length(group_concat(note, ',')) from b;
