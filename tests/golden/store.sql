-- The transcript store through plain SQL, the same in every host (see
-- tests/hosts_test.go): sessionsearch_migrate, then sessions and
-- transcript_events written with INSERT and DELETE as any host would, and
-- checks of what is searchable. One statement a line; each check prints
-- `case_id|1`. Each session uses its own words, so a search check lists the
-- seqs of the FTS5 rows that match (rowid & 4294967295 is the seq, '' for
-- none), or the message ids that sessions_search returns for the caller
-- agent:main:main (the main session sees its whole agent), newest first.
-- Timestamps grow with seq, so newest first is the reverse append order.
-- sessionsearch_fts has external content: a scan of it reads the content
-- view, so checks of what the index holds count FTS5's own rows in
-- sessionsearch_fts_docsize (one per indexed message) or use MATCH.

-- Foreign keys off, as most hosts leave them (better-sqlite3 turns them on).
pragma foreign_keys=off;

select 'migrate_returns_version', sessionsearch_migrate() = 3;
select 'migrate_is_idempotent', sessionsearch_migrate() = 3;
select 'migrate_creates_the_interface_tables', (select count(*) from sqlite_schema where type = 'table' and name in ('sessions', 'transcript_events')) = 2;
select 'empty_store_nothing_pending', sessions_index_status() = '{"pendingSessions":0}';
select 'empty_store_search', sessions_search('anything', '{"caller":"agent:main:main"}') = '{"results":[],"indexing":false,"truncated":false}';

insert into sessions(session_key, created_at) values ('agent:main:main', 1770440400000);

-- 1. Linear appends with explicit parentId, as OpenClaw writes them: a session header, messages, a thinking level change in the chain
insert into sessions(session_key, spawned_by, created_at) values ('agent:main:linear', 'agent:main:main', 1770440400000);
insert into transcript_events(session_key, seq, event) values ('agent:main:linear', 0, '{"type":"session","version":3,"id":"4f0c2a9e","timestamp":"2026-02-07T05:00:00.000Z","cwd":"/home/user/.openclaw/workspace"}');
insert into transcript_events(session_key, seq, event) values ('agent:main:linear', 1, '{"type":"message","id":"l1","parentId":null,"timestamp":"2026-02-07T05:00:01.000Z","message":{"role":"user","content":[{"type":"text","text":"linear apple question"}],"timestamp":1770440401000}}');
insert into transcript_events(session_key, seq, event) values ('agent:main:linear', 2, '{"type":"message","id":"l2","parentId":"l1","timestamp":"2026-02-07T05:00:02.000Z","message":{"role":"assistant","content":[{"type":"thinking","thinking":"linear ponder quietly"},{"type":"text","text":"linear banana answer"}],"stopReason":"stop","timestamp":1770440402000}}');
insert into transcript_events(session_key, seq, event) values ('agent:main:linear', 3, '{"type":"thinking_level_change","id":"l3","parentId":"l2","timestamp":"2026-02-07T05:00:03.000Z","thinkingLevel":"off"}');
insert into transcript_events(session_key, seq, event) values ('agent:main:linear', 4, '{"type":"message","id":"l4","parentId":"l3","timestamp":"2026-02-07T05:00:04.000Z","message":{"role":"user","content":"linear cherry next","timestamp":1770440404000}}');
select 'linear_fts_rows', (select group_concat(seq) from (select rowid & 4294967295 as seq from sessionsearch_fts where sessionsearch_fts match 'linear' order by 1)) = '1,2,4';
select 'linear_search', (select group_concat(value ->> 'messageId') from json_each(sessions_search('linear', '{"caller":"agent:main:main","sessionKey":"agent:main:linear","order":"recent"}') -> '$.results')) = 'l4,l2,l1';
select 'linear_word_of_one_message', (select group_concat(value ->> 'messageId') from json_each(sessions_search('banana', '{"caller":"agent:main:main","order":"recent"}') -> '$.results')) = 'l2';
select 'linear_thinking_not_searchable', (select count(*) from sessionsearch_fts where sessionsearch_fts match 'ponder') = 0;
select 'linear_string_content', (select group_concat(value ->> 'messageId') from json_each(sessions_search('cherry', '{"caller":"agent:main:main"}') -> '$.results')) = 'l4';
select 'linear_result_fields', (select value ->> 'sessionKey' || '|' || (value ->> 'role') || '|' || (value ->> 'timestamp') from json_each(sessions_search('banana', '{"caller":"agent:main:main"}') -> '$.results')) = 'agent:main:linear|assistant|1770440402000';
select 'linear_nothing_pending', sessions_index_status() = '{"pendingSessions":0}';

-- 2. Appends without parentId follow the leaf: the entry before them, and after a rewind, the rewind's target
insert into sessions(session_key, spawned_by) values ('agent:main:follow', 'agent:main:main');
insert into transcript_events(session_key, seq, event) values ('agent:main:follow', 0, '{"type":"message","id":"f1","timestamp":"2026-02-07T05:01:01.000Z","message":{"role":"user","content":"follow one"}}');
insert into transcript_events(session_key, seq, event) values ('agent:main:follow', 1, '{"type":"message","id":"f2","timestamp":"2026-02-07T05:01:02.000Z","message":{"role":"assistant","content":"follow two"}}');
insert into transcript_events(session_key, seq, event) values ('agent:main:follow', 2, '{"type":"custom","customType":"model-snapshot","id":"f3","timestamp":"2026-02-07T05:01:03.000Z","data":{"modelId":"qwen3:8b"}}');
insert into transcript_events(session_key, seq, event) values ('agent:main:follow', 3, '{"type":"message","id":"f4","timestamp":"2026-02-07T05:01:04.000Z","message":{"role":"user","content":"follow four"}}');
select 'follow_all_on_path', (select group_concat(seq) from (select rowid & 4294967295 as seq from sessionsearch_fts where sessionsearch_fts match 'follow' order by 1)) = '0,1,3';
insert into transcript_events(session_key, seq, event) values ('agent:main:follow', 4, '{"type":"leaf","id":"f5","targetId":"f1","timestamp":"2026-02-07T05:01:05.000Z"}');
select 'follow_rewind_to_first', (select group_concat(seq) from (select rowid & 4294967295 as seq from sessionsearch_fts where sessionsearch_fts match 'follow' order by 1)) = '0';
insert into transcript_events(session_key, seq, event) values ('agent:main:follow', 5, '{"type":"message","id":"f6","timestamp":"2026-02-07T05:01:06.000Z","message":{"role":"user","content":"follow six"}}');
select 'follow_after_rewind_hangs_from_target', (select group_concat(value ->> 'messageId') from json_each(sessions_search('follow', '{"caller":"agent:main:main","sessionKey":"agent:main:follow","order":"recent"}') -> '$.results')) = 'f6,f1';
select 'follow_abandoned_not_searchable', (select count(*) from sessionsearch_fts where sessionsearch_fts match 'follow two') = 0;

-- 3. A branch without leaf entries, switches back and forth with leaf entries, a leaf with an unknown target
insert into sessions(session_key, spawned_by) values ('agent:main:branch', 'agent:main:main');
insert into transcript_events(session_key, seq, event) values ('agent:main:branch', 0, '{"type":"message","id":"b1","parentId":null,"timestamp":"2026-02-07T05:02:01.000Z","message":{"role":"user","content":"branch root"}}');
insert into transcript_events(session_key, seq, event) values ('agent:main:branch', 1, '{"type":"message","id":"b2","parentId":"b1","timestamp":"2026-02-07T05:02:02.000Z","message":{"role":"assistant","content":"branch reply"}}');
insert into transcript_events(session_key, seq, event) values ('agent:main:branch', 2, '{"type":"message","id":"b3","parentId":"b2","timestamp":"2026-02-07T05:02:03.000Z","message":{"role":"user","content":"branch oldway question"}}');
insert into transcript_events(session_key, seq, event) values ('agent:main:branch', 3, '{"type":"message","id":"b4","parentId":"b3","timestamp":"2026-02-07T05:02:04.000Z","message":{"role":"assistant","content":"branch oldway answer"}}');
select 'branch_linear', (select group_concat(seq) from (select rowid & 4294967295 as seq from sessionsearch_fts where sessionsearch_fts match 'branch' order by 1)) = '0,1,2,3';
insert into transcript_events(session_key, seq, event) values ('agent:main:branch', 4, '{"type":"message","id":"b5","parentId":"b2","timestamp":"2026-02-07T05:02:05.000Z","message":{"role":"user","content":"branch newway question"}}');
select 'branch_new_message_abandons_old_branch', (select group_concat(seq) from (select rowid & 4294967295 as seq from sessionsearch_fts where sessionsearch_fts match 'branch' order by 1)) = '0,1,4';
select 'branch_old_words_gone', (select count(*) from sessionsearch_fts where sessionsearch_fts match 'oldway') = 0;
select 'branch_search', (select group_concat(value ->> 'messageId') from json_each(sessions_search('branch', '{"caller":"agent:main:main","sessionKey":"agent:main:branch","order":"recent"}') -> '$.results')) = 'b5,b2,b1';
insert into transcript_events(session_key, seq, event) values ('agent:main:branch', 5, '{"type":"leaf","id":"b6","parentId":"b5","targetId":"b4","timestamp":"2026-02-07T05:02:06.000Z"}');
select 'branch_switch_back_to_old', (select group_concat(seq) from (select rowid & 4294967295 as seq from sessionsearch_fts where sessionsearch_fts match 'branch' order by 1)) = '0,1,2,3';
select 'branch_switch_back_search', (select group_concat(value ->> 'messageId') from json_each(sessions_search('oldway', '{"caller":"agent:main:main","order":"recent"}') -> '$.results')) = 'b4,b3';
select 'branch_switched_away_not_found', (select count(*) from json_each(sessions_search('newway', '{"caller":"agent:main:main"}') -> '$.results')) = 0;
insert into transcript_events(session_key, seq, event) values ('agent:main:branch', 6, '{"type":"leaf","id":"b7","targetId":"no-such-entry","timestamp":"2026-02-07T05:02:07.000Z"}');
select 'branch_unknown_leaf_target_ignored', (select group_concat(seq) from (select rowid & 4294967295 as seq from sessionsearch_fts where sessionsearch_fts match 'branch' order by 1)) = '0,1,2,3';
insert into transcript_events(session_key, seq, event) values ('agent:main:branch', 7, '{"type":"leaf","id":"b8","targetId":"b1","timestamp":"2026-02-07T05:02:08.000Z"}');
select 'branch_rewind_to_root', (select group_concat(seq) from (select rowid & 4294967295 as seq from sessionsearch_fts where sessionsearch_fts match 'branch' order by 1)) = '0';
insert into transcript_events(session_key, seq, event) values ('agent:main:branch', 8, '{"type":"leaf","id":"b9","targetId":"b5","timestamp":"2026-02-07T05:02:09.000Z"}');
select 'branch_switch_to_new_again', (select group_concat(seq) from (select rowid & 4294967295 as seq from sessionsearch_fts where sessionsearch_fts match 'branch' order by 1)) = '0,1,4';
insert into transcript_events(session_key, seq, event) values ('agent:main:branch', 9, '{"type":"message","id":"b10","timestamp":"2026-02-07T05:02:10.000Z","message":{"role":"assistant","content":"branch newway answer"}}');
select 'branch_append_after_switch', (select group_concat(value ->> 'messageId') from json_each(sessions_search('newway', '{"caller":"agent:main:main","order":"recent"}') -> '$.results')) = 'b10,b5';
select 'branch_fts_rows_after_switches', (select group_concat(seq) from (select rowid & 4294967295 as seq from sessionsearch_fts where sessionsearch_fts match 'branch' order by 1)) = '0,1,4,9';

-- 4. appendMode side entries leave the leaf where it is: not on the active path unless a later entry names them as parent
insert into sessions(session_key, spawned_by) values ('agent:main:side', 'agent:main:main');
insert into transcript_events(session_key, seq, event) values ('agent:main:side', 0, '{"type":"message","id":"s1","parentId":null,"timestamp":"2026-02-07T05:03:01.000Z","message":{"role":"user","content":"sidecar main question"}}');
insert into transcript_events(session_key, seq, event) values ('agent:main:side', 1, '{"type":"message","id":"s2","parentId":"s1","timestamp":"2026-02-07T05:03:02.000Z","message":{"role":"assistant","content":"sidecar main answer"}}');
insert into transcript_events(session_key, seq, event) values ('agent:main:side', 2, '{"type":"message","id":"s3","parentId":"s2","appendMode":"side","timestamp":"2026-02-07T05:03:03.000Z","message":{"role":"user","content":"sidecar btw aside"}}');
select 'side_entry_not_searchable', (select group_concat(seq) from (select rowid & 4294967295 as seq from sessionsearch_fts where sessionsearch_fts match 'sidecar' order by 1)) = '0,1';
insert into transcript_events(session_key, seq, event) values ('agent:main:side', 3, '{"type":"message","id":"s4","timestamp":"2026-02-07T05:03:04.000Z","message":{"role":"user","content":"sidecar next question"}}');
select 'side_entry_leaves_leaf', (select group_concat(value ->> 'messageId') from json_each(sessions_search('sidecar', '{"caller":"agent:main:main","sessionKey":"agent:main:side","order":"recent"}') -> '$.results')) = 's4,s2,s1';
insert into transcript_events(session_key, seq, event) values ('agent:main:side', 4, '{"type":"message","id":"s5","parentId":"s3","timestamp":"2026-02-07T05:03:05.000Z","message":{"role":"assistant","content":"sidecar reply to aside"}}');
select 'side_entry_as_parent_joins_path', (select group_concat(seq) from (select rowid & 4294967295 as seq from sessionsearch_fts where sessionsearch_fts match 'sidecar' order by 1)) = '0,1,2,4';

-- 5. Entries without id: never the leaf; an entry without parentId after them hangs from the leaf
insert into sessions(session_key, spawned_by) values ('agent:main:noid', 'agent:main:main');
insert into transcript_events(session_key, seq, event) values ('agent:main:noid', 0, '{"type":"message","id":"n1","parentId":null,"timestamp":"2026-02-07T05:04:01.000Z","message":{"role":"user","content":"noid first"}}');
insert into transcript_events(session_key, seq, event) values ('agent:main:noid', 1, '{"type":"custom","customType":"openclaw.cache-ttl","timestamp":"2026-02-07T05:04:02.000Z","data":{"ttl":300}}');
insert into transcript_events(session_key, seq, event) values ('agent:main:noid', 2, '{"type":"message","timestamp":"2026-02-07T05:04:03.000Z","message":{"role":"assistant","content":"noid without an id"}}');
insert into transcript_events(session_key, seq, event) values ('agent:main:noid', 3, '{"type":"message","id":"n4","timestamp":"2026-02-07T05:04:04.000Z","message":{"role":"user","content":"noid fourth"}}');
select 'noid_message_without_id_not_searchable', (select group_concat(seq) from (select rowid & 4294967295 as seq from sessionsearch_fts where sessionsearch_fts match 'noid' order by 1)) = '0,3';
select 'noid_next_hangs_from_leaf', (select group_concat(value ->> 'messageId') from json_each(sessions_search('noid', '{"caller":"agent:main:main","sessionKey":"agent:main:noid","order":"recent"}') -> '$.results')) = 'n4,n1';
select 'noid_events_kept', (select count(*) from transcript_events where session_key = 'agent:main:noid') = 4;

-- 6. Duplicate ids: the entry appended last wins, as parent and as leaf
insert into sessions(session_key, spawned_by) values ('agent:main:dup', 'agent:main:main');
insert into transcript_events(session_key, seq, event) values ('agent:main:dup', 0, '{"type":"message","id":"d1","parentId":null,"timestamp":"2026-02-07T05:05:01.000Z","message":{"role":"user","content":"dupe question"}}');
insert into transcript_events(session_key, seq, event) values ('agent:main:dup', 1, '{"type":"message","id":"d2","parentId":"d1","timestamp":"2026-02-07T05:05:02.000Z","message":{"role":"assistant","content":"dupe firstdraft"}}');
insert into transcript_events(session_key, seq, event) values ('agent:main:dup', 2, '{"type":"message","id":"d2","parentId":"d1","timestamp":"2026-02-07T05:05:03.000Z","message":{"role":"assistant","content":"dupe seconddraft"}}');
select 'dup_latest_wins', (select group_concat(seq) from (select rowid & 4294967295 as seq from sessionsearch_fts where sessionsearch_fts match 'dupe' order by 1)) = '0,2';
select 'dup_earlier_text_gone', (select count(*) from sessionsearch_fts where sessionsearch_fts match 'firstdraft') = 0;
insert into transcript_events(session_key, seq, event) values ('agent:main:dup', 3, '{"type":"message","id":"d3","parentId":"d2","timestamp":"2026-02-07T05:05:04.000Z","message":{"role":"user","content":"dupe thanks"}}');
select 'dup_parent_is_latest', (select group_concat(value ->> 'messageId' || '@' || (value ->> 'timestamp')) from json_each(sessions_search('dupe', '{"caller":"agent:main:main","sessionKey":"agent:main:dup","order":"recent"}') -> '$.results')) = 'd3@1770440704000,d2@1770440703000,d1@1770440701000';

-- 6b. Ids resolve when an entry is appended: a parentId names the latest entry with that id before it, so links never form a cycle
insert into sessions(session_key, spawned_by) values ('agent:main:reuse', 'agent:main:main');
insert into transcript_events(session_key, seq, event) values ('agent:main:reuse', 0, '{"type":"message","id":"r1","parentId":null,"timestamp":"2026-02-07T05:05:11.000Z","message":{"role":"user","content":"reuse first"}}');
insert into transcript_events(session_key, seq, event) values ('agent:main:reuse', 1, '{"type":"message","id":"r2","parentId":"r1","timestamp":"2026-02-07T05:05:12.000Z","message":{"role":"assistant","content":"reuse second"}}');
insert into transcript_events(session_key, seq, event) values ('agent:main:reuse', 2, '{"type":"message","id":"r1","parentId":"r2","timestamp":"2026-02-07T05:05:13.000Z","message":{"role":"user","content":"reuse third"}}');
select 'reuse_ancestor_id_extends_the_path', (select group_concat(seq) from (select rowid & 4294967295 as seq from sessionsearch_fts where sessionsearch_fts match 'reuse' order by 1)) = '0,1,2';
insert into transcript_events(session_key, seq, event) values ('agent:main:reuse', 3, '{"type":"message","id":"r4","parentId":"r1","timestamp":"2026-02-07T05:05:14.000Z","message":{"role":"assistant","content":"reuse fourth"}}');
select 'reuse_parent_is_the_latest_before', (select group_concat(seq) from (select rowid & 4294967295 as seq from sessionsearch_fts where sessionsearch_fts match 'reuse' order by 1)) = '0,1,2,3';
insert into transcript_events(session_key, seq, event) values ('agent:main:reuse', 4, '{"type":"message","id":"r4","parentId":"r1","appendMode":"side","timestamp":"2026-02-07T05:05:15.000Z","message":{"role":"user","content":"reuse aside"}}');
select 'reuse_side_entry_leaves_the_path', (select group_concat(seq) from (select rowid & 4294967295 as seq from sessionsearch_fts where sessionsearch_fts match 'reuse' order by 1)) = '0,1,2,3';
insert into transcript_events(session_key, seq, event) values ('agent:main:reuse', 5, '{"type":"message","id":"r6","parentId":"r4","timestamp":"2026-02-07T05:05:16.000Z","message":{"role":"assistant","content":"reuse sixth"}}');
select 'reuse_side_entry_took_the_id', (select group_concat(seq) from (select rowid & 4294967295 as seq from sessionsearch_fts where sessionsearch_fts match 'reuse' order by 1)) = '0,1,2,4,5';
insert into transcript_events(session_key, seq, event) values ('agent:main:reuse', 6, '{"type":"message","id":"r7","parentId":"r8","timestamp":"2026-02-07T05:05:17.000Z","message":{"role":"user","content":"reuse seventh"}}');
insert into transcript_events(session_key, seq, event) values ('agent:main:reuse', 7, '{"type":"message","id":"r8","parentId":"r7","timestamp":"2026-02-07T05:05:18.000Z","message":{"role":"assistant","content":"reuse eighth"}}');
select 'reuse_parent_appended_later_hangs_from_the_leaf', (select group_concat(seq) from (select rowid & 4294967295 as seq from sessionsearch_fts where sessionsearch_fts match 'reuse' order by 1)) = '0,1,2,4,5,6,7';
insert into transcript_events(session_key, seq, event) values ('agent:main:reuse', 8, '{"type":"leaf","id":"r9","targetId":"r1","timestamp":"2026-02-07T05:05:19.000Z"}');
select 'reuse_leaf_target_is_the_latest', (select group_concat(seq) from (select rowid & 4294967295 as seq from sessionsearch_fts where sessionsearch_fts match 'reuse' order by 1)) = '0,1,2';
select 'reuse_history_follows_the_path', (select group_concat(value ->> 'text', '|') from json_each(sessions_history('agent:main:reuse', '{"caller":"agent:main:main"}') -> '$.messages')) = 'reuse first|reuse second|reuse third';

-- 7. What is indexed: text, input_text and output_text blocks, message.text; never thinking, images, tool calls, toolResult or system messages
insert into sessions(session_key, spawned_by) values ('agent:main:kinds', 'agent:main:main');
insert into transcript_events(session_key, seq, event) values ('agent:main:kinds', 0, '{"type":"message","id":"k1","parentId":null,"timestamp":"2026-02-07T05:06:01.000Z","message":{"role":"system","content":"kinds sysprompt"}}');
insert into transcript_events(session_key, seq, event) values ('agent:main:kinds', 1, '{"type":"message","id":"k2","parentId":"k1","timestamp":"2026-02-07T05:06:02.000Z","message":{"role":"user","content":[{"type":"input_text","text":"kinds inputblock"},{"type":"image","data":"aW1hZ2Vfa2luZHM=","mimeType":"image/png"},{"type":"text","text":"kinds textblock"}]}}');
insert into transcript_events(session_key, seq, event) values ('agent:main:kinds', 2, '{"type":"message","id":"k3","parentId":"k2","timestamp":"2026-02-07T05:06:03.000Z","message":{"role":"assistant","content":[{"type":"thinking","thinking":"kinds innerthought","thinkingSignature":"sig"},{"type":"toolCall","id":"call_1","name":"web_search","arguments":{"query":"kinds toolquery"}}],"stopReason":"toolUse"}}');
insert into transcript_events(session_key, seq, event) values ('agent:main:kinds', 3, '{"type":"message","id":"k4","parentId":"k3","timestamp":"2026-02-07T05:06:04.000Z","message":{"role":"toolResult","toolCallId":"call_1","toolName":"web_search","content":[{"type":"text","text":"kinds toolresulttext"}],"isError":false}}');
insert into transcript_events(session_key, seq, event) values ('agent:main:kinds', 4, '{"type":"message","id":"k5","parentId":"k4","timestamp":"2026-02-07T05:06:05.000Z","message":{"role":"assistant","content":[{"type":"output_text","text":"kinds outputblock"}]}}');
insert into transcript_events(session_key, seq, event) values ('agent:main:kinds', 5, '{"type":"message","id":"k6","parentId":"k5","timestamp":"2026-02-07T05:06:06.000Z","message":{"role":"user","text":"kinds textfield"}}');
insert into transcript_events(session_key, seq, event) values ('agent:main:kinds', 6, '{"type":"custom_message","id":"k7","parentId":"k6","timestamp":"2026-02-07T05:06:07.000Z","customType":"note","content":"kinds customtext","display":true}');
insert into transcript_events(session_key, seq, event) values ('agent:main:kinds', 7, '{"type":"compaction","id":"k8","parentId":"k7","timestamp":"2026-02-07T05:06:08.000Z","summary":"kinds compactsummary","firstKeptEntryId":"k2","tokensBefore":1000}');
insert into transcript_events(session_key, seq, event) values ('agent:main:kinds', 8, '{"type":"message","id":"k9","parentId":"k8","timestamp":"2026-02-07T05:06:09.000Z","message":{"role":"assistant","content":[{"type":"thinking","thinking":"kinds onlythinking"}]}}');
select 'kinds_indexed_seqs', (select group_concat(seq) from (select rowid & 4294967295 as seq from sessionsearch_fts where sessionsearch_fts match 'kinds' order by 1)) = '1,4,5';
select 'kinds_blocks_joined_by_newline', (select text from sessionsearch_fts where rowid & 4294967295 = 1 and rowid >> 32 = (select rowid >> 32 from sessionsearch_fts where sessionsearch_fts match 'outputblock')) = 'kinds inputblock' || char(10) || 'kinds textblock';
select 'kinds_input_text_block', (select group_concat(value ->> 'messageId') from json_each(sessions_search('inputblock', '{"caller":"agent:main:main"}') -> '$.results')) = 'k2';
select 'kinds_text_block_after_image', (select group_concat(value ->> 'messageId') from json_each(sessions_search('textblock', '{"caller":"agent:main:main"}') -> '$.results')) = 'k2';
select 'kinds_output_text_block', (select group_concat(value ->> 'messageId') from json_each(sessions_search('outputblock', '{"caller":"agent:main:main"}') -> '$.results')) = 'k5';
select 'kinds_message_text_field', (select group_concat(value ->> 'messageId') from json_each(sessions_search('textfield', '{"caller":"agent:main:main"}') -> '$.results')) = 'k6';
select 'kinds_system_not_searchable', (select count(*) from sessionsearch_fts where sessionsearch_fts match 'sysprompt') = 0;
select 'kinds_image_data_not_searchable', (select count(*) from sessionsearch_fts where sessionsearch_fts match 'aW1hZ2Vfa2luZHM') = 0;
select 'kinds_thinking_not_searchable', (select count(*) from sessionsearch_fts where sessionsearch_fts match 'innerthought OR onlythinking') = 0;
select 'kinds_tool_call_not_searchable', (select count(*) from sessionsearch_fts where sessionsearch_fts match 'toolquery OR web_search') = 0;
select 'kinds_tool_result_not_searchable', (select count(*) from sessionsearch_fts where sessionsearch_fts match 'toolresulttext') = 0;
select 'kinds_other_types_not_searchable', (select count(*) from sessionsearch_fts where sessionsearch_fts match 'customtext OR compactsummary') = 0;
select 'kinds_search_finds_only_messages', (select group_concat(value ->> 'messageId' || ':' || (value ->> 'role')) from json_each(sessions_search('kinds', '{"caller":"agent:main:main","order":"recent"}') -> '$.results')) = 'k6:user,k5:assistant,k2:user';
select 'kinds_every_event_kept', (select count(*) from transcript_events where session_key = 'agent:main:kinds') = 9;

-- 8. A rolled-back transaction leaves the index as it was: an append, a rewind, a branch, a session delete
begin;
insert into transcript_events(session_key, seq, event) values ('agent:main:linear', 5, '{"type":"message","id":"l5","parentId":"l4","timestamp":"2026-02-07T05:00:05.000Z","message":{"role":"assistant","content":"linear durian uncommitted"}}');
select 'rollback_append_seen_inside', (select group_concat(value ->> 'messageId') from json_each(sessions_search('durian', '{"caller":"agent:main:main"}') -> '$.results')) = 'l5';
rollback;
select 'rollback_append_gone', (select count(*) from json_each(sessions_search('durian', '{"caller":"agent:main:main"}') -> '$.results')) = 0;
select 'rollback_append_fts_as_before', (select group_concat(seq) from (select rowid & 4294967295 as seq from sessionsearch_fts where sessionsearch_fts match 'linear' order by 1)) = '1,2,4';
select 'rollback_append_event_gone', (select count(*) from transcript_events where session_key = 'agent:main:linear') = 5;
begin;
insert into transcript_events(session_key, seq, event) values ('agent:main:linear', 5, '{"type":"leaf","id":"l5","targetId":"l1","timestamp":"2026-02-07T05:00:05.000Z"}');
select 'rollback_rewind_seen_inside', (select group_concat(seq) from (select rowid & 4294967295 as seq from sessionsearch_fts where sessionsearch_fts match 'linear' order by 1)) = '1';
rollback;
select 'rollback_rewind_fts_as_before', (select group_concat(seq) from (select rowid & 4294967295 as seq from sessionsearch_fts where sessionsearch_fts match 'linear' order by 1)) = '1,2,4';
select 'rollback_rewind_search_as_before', (select group_concat(value ->> 'messageId') from json_each(sessions_search('linear', '{"caller":"agent:main:main","sessionKey":"agent:main:linear","order":"recent"}') -> '$.results')) = 'l4,l2,l1';
begin;
insert into transcript_events(session_key, seq, event) values ('agent:main:linear', 5, '{"type":"message","id":"l5","parentId":"l1","timestamp":"2026-02-07T05:00:05.000Z","message":{"role":"assistant","content":"linear elderberry branch"}}');
select 'rollback_branch_seen_inside', (select group_concat(seq) from (select rowid & 4294967295 as seq from sessionsearch_fts where sessionsearch_fts match 'linear' order by 1)) = '1,5';
rollback;
select 'rollback_branch_search_as_before', (select group_concat(value ->> 'messageId') from json_each(sessions_search('linear', '{"caller":"agent:main:main","sessionKey":"agent:main:linear","order":"recent"}') -> '$.results')) = 'l4,l2,l1';
begin;
delete from sessions where session_key = 'agent:main:linear';
select 'rollback_delete_gone_inside', (select count(*) from sessionsearch_fts where sessionsearch_fts match 'linear') = 0;
rollback;
select 'rollback_delete_search_as_before', (select group_concat(value ->> 'messageId') from json_each(sessions_search('linear', '{"caller":"agent:main:main","sessionKey":"agent:main:linear","order":"recent"}') -> '$.results')) = 'l4,l2,l1';
select 'rollback_delete_events_back', (select count(*) from transcript_events where session_key = 'agent:main:linear') = 5;
insert into transcript_events(session_key, seq, event) values ('agent:main:linear', 5, '{"type":"message","id":"l5","parentId":"l4","timestamp":"2026-02-07T05:00:05.000Z","message":{"role":"assistant","content":"linear fig committed"}}');
select 'append_after_rollbacks', (select group_concat(value ->> 'messageId') from json_each(sessions_search('linear', '{"caller":"agent:main:main","sessionKey":"agent:main:linear","order":"recent"}') -> '$.results')) = 'l5,l4,l2,l1';
select 'nothing_pending_after_rollbacks', sessions_index_status() = '{"pendingSessions":0}';

-- 9. Bulk loading: sessions_defer_indexing(1) makes inserts mark their session pending; a pending session is left out of search until reconciled
select 'defer_indexing_was_off', sessions_defer_indexing(1) = 0;
insert into sessions(session_key, spawned_by) values ('agent:main:bulk', 'agent:main:main');
insert into transcript_events(session_key, seq, event) values ('agent:main:bulk', 0, '{"type":"message","id":"u1","parentId":null,"timestamp":"2026-02-07T05:07:01.000Z","message":{"role":"user","content":"bulkload question"}}');
insert into transcript_events(session_key, seq, event) values ('agent:main:bulk', 1, '{"type":"message","id":"u2","parentId":"u1","timestamp":"2026-02-07T05:07:02.000Z","message":{"role":"assistant","content":"bulkload answer"}}');
insert into transcript_events(session_key, seq, event) values ('agent:main:bulk', 2, '{"type":"message","id":"u3","parentId":"u1","timestamp":"2026-02-07T05:07:03.000Z","message":{"role":"assistant","content":"bulkload retry"}}');
select 'defer_indexing_was_on', sessions_defer_indexing(0) = 1;
select 'bulk_pending', sessions_index_status() = '{"pendingSessions":1}';
select 'bulk_search_indexing_and_left_out', sessions_search('bulkload', '{"caller":"agent:main:main"}') = '{"results":[],"indexing":true,"truncated":false}';
select 'bulk_search_other_sessions_still_found', (select group_concat(value ->> 'messageId') from json_each(sessions_search('question', '{"caller":"agent:main:main","order":"recent"}') -> '$.results')) = 'd1,s1,b5,l1';
select 'bulk_search_indexing_flag', sessions_search('question', '{"caller":"agent:main:main"}') ->> '$.indexing' = 1;
select 'bulk_search_hidden_pending_not_indexing', sessions_search('bulkload', '{"caller":"agent:main:linear"}') = '{"results":[],"indexing":false,"truncated":false}';
select 'bulk_reconcile', sessions_reconcile(1000) = '{"pending":0,"indexed":1}';
select 'bulk_nothing_pending', sessions_index_status() = '{"pendingSessions":0}';
select 'bulk_found_after_reconcile', (select group_concat(value ->> 'messageId') from json_each(sessions_search('bulkload', '{"caller":"agent:main:main","order":"recent"}') -> '$.results')) = 'u3,u1';
select 'bulk_not_indexing_after_reconcile', sessions_search('bulkload', '{"caller":"agent:main:main"}') ->> '$.indexing' = 0;
select 'bulk_reconcile_again', sessions_reconcile(1000) = '{"pending":0,"indexed":0}';
insert into transcript_events(session_key, seq, event) values ('agent:main:bulk', 3, '{"type":"message","id":"u4","parentId":"u3","timestamp":"2026-02-07T05:07:04.000Z","message":{"role":"user","content":"bulkload thanks"}}');
select 'bulk_append_after_reconcile_indexed', (select group_concat(seq) from (select rowid & 4294967295 as seq from sessionsearch_fts where sessionsearch_fts match 'bulkload' order by 1)) = '0,2,3';

-- 10. An event inserted out of seq order also waits for reconciliation
insert into transcript_events(session_key, seq, event) values ('agent:main:bulk', 5, '{"type":"message","id":"u6","parentId":"u4","timestamp":"2026-02-07T05:07:06.000Z","message":{"role":"assistant","content":"bulkload gap"}}');
select 'gap_pending', sessions_index_status() = '{"pendingSessions":1}';
select 'gap_session_left_out', sessions_search('bulkload', '{"caller":"agent:main:main"}') = '{"results":[],"indexing":true,"truncated":false}';
select 'gap_history_while_pending', (select group_concat(value ->> 'id') from json_each(sessions_history('agent:main:bulk', '{"caller":"agent:main:main"}') -> '$.messages')) = 'u1,u3,u4,u6';
insert into transcript_events(session_key, seq, event) values ('agent:main:bulk', 4, '{"type":"message","id":"u5","parentId":"u4","timestamp":"2026-02-07T05:07:05.000Z","message":{"role":"assistant","content":"bulkload filled"}}');
select 'gap_reconcile', sessions_reconcile(1000) = '{"pending":0,"indexed":1}';
select 'gap_found_after_reconcile', (select group_concat(value ->> 'messageId') from json_each(sessions_search('bulkload', '{"caller":"agent:main:main","order":"recent"}') -> '$.results')) = 'u6,u4,u3,u1';
select 'gap_seq_is_append_order', (select group_concat(value ->> 'id') from json_each(sessions_history('agent:main:bulk', '{"caller":"agent:main:main"}') -> '$.messages')) = 'u1,u3,u4,u6';

-- 11. DELETE FROM sessions removes the session's events and index rows, with foreign keys off and on
create temp table doomed as select sid, session_key from sessionsearch_sessions where session_key in ('agent:main:dup', 'agent:main:kinds');
select 'delete_setup', (select count(*) from doomed) = 2;
select 'delete_before_events', (select count(*) from transcript_events where session_key = 'agent:main:dup') = 4;
select 'delete_before_fts', (select count(*) from sessionsearch_fts_docsize where id >> 32 = (select sid from doomed where session_key = 'agent:main:dup')) = 3;
select 'delete_before_entries', (select count(*) from sessionsearch_entries where sid = (select sid from doomed where session_key = 'agent:main:dup')) = 4;
select 'delete_fk_off', (select foreign_keys from pragma_foreign_keys) = 0;
delete from sessions where session_key = 'agent:main:dup';
select 'delete_fk_off_events', (select count(*) from transcript_events where session_key = 'agent:main:dup') = 0;
select 'delete_fk_off_fts', (select count(*) from sessionsearch_fts_docsize where id >> 32 = (select sid from doomed where session_key = 'agent:main:dup')) = 0;
select 'delete_fk_off_entries', (select count(*) from sessionsearch_entries where sid = (select sid from doomed where session_key = 'agent:main:dup')) = 0;
select 'delete_fk_off_session_state', (select count(*) from sessionsearch_sessions where session_key = 'agent:main:dup') = 0;
select 'delete_fk_off_not_searchable', sessions_search('dupe', '{"caller":"agent:main:main"}') = '{"results":[],"indexing":false,"truncated":false}';
pragma foreign_keys=on;
select 'delete_fk_on', (select foreign_keys from pragma_foreign_keys) = 1;
delete from sessions where session_key = 'agent:main:kinds';
select 'delete_fk_on_events', (select count(*) from transcript_events where session_key = 'agent:main:kinds') = 0;
select 'delete_fk_on_fts', (select count(*) from sessionsearch_fts_docsize where id >> 32 = (select sid from doomed where session_key = 'agent:main:kinds')) = 0;
select 'delete_fk_on_entries', (select count(*) from sessionsearch_entries where sid = (select sid from doomed where session_key = 'agent:main:kinds')) = 0;
select 'delete_fk_on_not_searchable', (select count(*) from json_each(sessions_search('kinds', '{"caller":"agent:main:main"}') -> '$.results')) = 0;
select 'delete_others_untouched', (select group_concat(value ->> 'messageId') from json_each(sessions_search('linear', '{"caller":"agent:main:main","sessionKey":"agent:main:linear","order":"recent"}') -> '$.results')) = 'l5,l4,l2,l1';
select 'delete_totals', (select count(*) from sessions) || '/' || (select count(*) from transcript_events) || '/' || (select count(*) from sessionsearch_sessions) = '8/46/8';
insert into sessions(session_key, spawned_by) values ('agent:main:dup', 'agent:main:main');
insert into transcript_events(session_key, seq, event) values ('agent:main:dup', 0, '{"type":"message","id":"d1","parentId":null,"timestamp":"2026-02-07T05:08:01.000Z","message":{"role":"user","content":"dupe reborn"}}');
select 'delete_key_reused', (select group_concat(value ->> 'messageId' || '@' || (value ->> 'timestamp')) from json_each(sessions_search('dupe', '{"caller":"agent:main:main"}') -> '$.results')) = 'd1@1770440881000';
pragma foreign_keys=off;

-- 12. An index built by another version (tokens or masking) is rebuilt from its content by sessionsearch_migrate()
update sessionsearch_meta set value = '0.0' where key = 'index_version';
select 'old_index_migrate', sessionsearch_migrate() = 3;
select 'old_index_version_recorded', (select value from sessionsearch_meta where key = 'index_version') = sessionsearch_index_version();
select 'old_index_search_after_rebuild', (select group_concat(value ->> 'messageId') from json_each(sessions_search('linear', '{"caller":"agent:main:main","sessionKey":"agent:main:linear","order":"recent"}') -> '$.results')) = 'l5,l4,l2,l1';
select 'old_index_rows_after_rebuild', (select count(*) from sessionsearch_fts where sessionsearch_fts match 'reuse') = 3;

-- 12a. A reset entry is a boundary (docs/store.md S6a): a stale parent after it, or a rewind to before it, hides nothing
insert into sessions(session_key, spawned_by) values ('agent:main:reset', 'agent:main:main');
insert into transcript_events(session_key, seq, event) values ('agent:main:reset', 0, '{"type":"message","id":"r1","parentId":null,"timestamp":"2026-02-07T05:09:01.000Z","message":{"role":"user","content":"resetword before"}}');
insert into transcript_events(session_key, seq, event) values ('agent:main:reset', 1, '{"type":"reset","id":"R","parentId":"r1","timestamp":"2026-02-07T05:09:02.000Z"}');
insert into transcript_events(session_key, seq, event) values ('agent:main:reset', 2, '{"type":"message","id":"r3","parentId":"R","timestamp":"2026-02-07T05:09:03.000Z","message":{"role":"user","content":"resetword after"}}');
insert into transcript_events(session_key, seq, event) values ('agent:main:reset', 3, '{"type":"message","id":"r4","parentId":"r1","timestamp":"2026-02-07T05:09:04.000Z","message":{"role":"assistant","content":"resetword stale parent"}}');
select 'reset_stale_parent_hangs_from_leaf', (select group_concat(seq) from (select rowid & 4294967295 as seq from sessionsearch_fts where sessionsearch_fts match 'resetword' order by 1)) = '0,2,3';
insert into transcript_events(session_key, seq, event) values ('agent:main:reset', 4, '{"type":"leaf","id":"L","targetId":"r1","timestamp":"2026-02-07T05:09:05.000Z"}');
select 'reset_rewind_before_it_ignored', (select group_concat(value ->> 'id') from json_each(sessions_history('agent:main:reset', '{"caller":"agent:main:main"}') -> '$.messages')) = 'r1,r3,r4';

-- 12b. Events kept as zstd frames (docs/store.md S19), as a bulk load stores large ones: searched, shown by history and read by sessionsearch_event like JSON text
insert into sessions(session_key, spawned_by) values ('agent:main:frames', 'agent:main:main');
insert into transcript_events(session_key, seq, event) values ('agent:main:frames', 0, '{"type":"message","id":"z0","parentId":null,"timestamp":"2026-02-07T05:30:00.000Z","message":{"role":"user","content":"zeppelin question"}}');
insert into transcript_events(session_key, seq, event) values ('agent:main:frames', 1, X'28B52FFD64AB04E50300F2C81B1B706B1340999A459756AD8EF1DA07FCAB0B9AD5C84024F65FFD9710CF63BC4A2D8194750F25E4125AF6055A0B73C6FEACDEF55D0DC2E876C7B0FA4CD3EC28FA9099002435032A4803218F248F419289D54CA57557CB1A9DCF6AA5B0EB2D31A39167B5B2187D4572EECAEAB3C6DA0902000951CE87C9D1F0199390D125');
insert into transcript_events(session_key, seq, event) values ('agent:main:frames', 2, X'28B52FFD641904250500E24B2420506B9B010042002565C99635D38CFE02130A28C40824185B2E82E73BAAAA0106CFA3F09C98EAA28516146DD3B651A4202C5B4B677C19B9A797919B80AF92ABE8E2F4B17219CF64152416E38782B145C054F7F4B2864903A6BAE3C974B9816984BB43A8C303C0803B18B883BA83803A35DE92B54C26C89E4E38E38762955C563BAD9CF103399D0C8B613219CFD6B037020400F8C1F50B24A3B16B32999C024701859E0C32');
select 'frames_stored_as_blobs', (select group_concat(typeof(event)) from transcript_events where session_key = 'agent:main:frames') = 'text,blob,blob';
select 'frames_searched', (select group_concat(value ->> 'messageId') from json_each(sessions_search('zeppelin', '{"caller":"agent:main:main","sessionKey":"agent:main:frames","order":"recent"}') -> '$.results')) = 'z1,z0';
select 'frames_tool_output_not_searched', (select group_concat(seq) from (select rowid & 4294967295 as seq from sessionsearch_fts where sessionsearch_fts match 'zeppelin' order by 1)) = '0,1';
select 'frames_history', (select group_concat(value ->> 'id') from json_each(sessions_history('agent:main:frames', '{"caller":"agent:main:main"}') -> '$.messages')) = 'z0,z1';
select 'frames_history_include_tools', (select substr(value ->> 'text', 1, 24) from json_each(sessions_history('agent:main:frames', '{"caller":"agent:main:main","includeTools":true}') -> '$.messages') where value ->> 'id' = 'z2') = 'zeppelin output of a too';
select 'frames_event_function', (select group_concat(sessionsearch_event(event) ->> 'id') from transcript_events where session_key = 'agent:main:frames') = 'z0,z1,z2';
select 'frames_event_function_text_unchanged', (select sessionsearch_event(event) = event from transcript_events where session_key = 'agent:main:frames' and seq = 0) = 1;
select 'frames_snippet_from_frame', (select value ->> 'snippet' like 'zeppelin kept as a zstd frame%' from json_each(sessions_search('zeppelin', '{"caller":"agent:main:main","sessionKey":"agent:main:frames","order":"recent"}') -> '$.results') where value ->> 'messageId' = 'z1') = 1;

-- 13. The index is consistent
insert into sessionsearch_fts(sessionsearch_fts) values ('integrity-check');
select 'fts_rows_are_active_messages', (select count(*) from sessionsearch_fts_docsize) = (select count(*) from sessionsearch_messages);
select 'nothing_pending_at_the_end', sessions_index_status() = '{"pendingSessions":0}';
select 'integrity_check', (select group_concat(integrity_check) from pragma_integrity_check) = 'ok';

-- 14. With trusted_schema off (a host that distrusts the database's schema), search and history work: no view or table definition calls a function that is not innocuous, JSON's included (SQLite 3.40 does not count those as innocuous)
pragma trusted_schema=off;
select 'untrusted_search', (select group_concat(value ->> 'messageId') from json_each(sessions_search('linear', '{"caller":"agent:main:main","sessionKey":"agent:main:linear","order":"recent"}') -> '$.results')) = 'l5,l4,l2,l1';
select 'untrusted_history', (select group_concat(value ->> 'id') from json_each(sessions_history('agent:main:linear', '{"caller":"agent:main:main"}') -> '$.messages')) = 'l1,l2,l4,l5';
select 'untrusted_snippet', (select count(*) from sessionsearch_fts where sessionsearch_fts match 'linear' and snippet(sessionsearch_fts, 0, '[', ']', '…', 8) like '%[linear]%') = 4;
pragma trusted_schema=on;
