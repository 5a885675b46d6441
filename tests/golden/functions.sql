-- The SQL functions of the extension, the same in every host (see
-- tests/hosts_test.go): metadata, redact_snippet and sessions_match. One
-- statement a line; each check prints `case_id|1`.

-- Metadata
select 'version_is_v', sessionsearch_version() like 'v_%';
select 'version_has_no_space', instr(sessionsearch_version(), ' ') = 0;
select 'version_in_debug', instr(sessionsearch_debug(), 'version=' || sessionsearch_version()) > 0;
select 'debug_unicode_version', instr(sessionsearch_debug(), 'unicode=15.0.0') > 0;
select 'debug_index_version', instr(sessionsearch_debug(), ' index=' || sessionsearch_index_version()) > 0;
select 'debug_host_sqlite_version', instr(sessionsearch_debug(), 'sqlite=' || sqlite_version()) > 0;
select 'debug_go_version', sessionsearch_debug() like '% go=go1.%';
select 'debug_commit_and_build_date', sessionsearch_debug() like '% commit=% built=%';
select 'debug_tokenizer_version', sessionsearch_debug() like '% tokenizer=_%';

-- redact_snippet(text [, max_chars]): secrets masked, then cut to max_chars characters with …
select 'redact_github_token', redact_snippet('token ghp_R8aK2mQ9xT4vB7nL1pZ6wE3yH5cJ0dF2gS8u end') = 'token [REDACTED:github-token] end';
select 'redact_github_token_in_assignment', redact_snippet('export GITHUB_TOKEN=ghp_R8aK2mQ9xT4vB7nL1pZ6wE3yH5cJ0dF2gS8u') = 'export GITHUB_TOKEN=[REDACTED:github-token]';
select 'redact_aws_key', redact_snippet('key AKIAZ7Q2LD3MX9PWR4TB here') = 'key [REDACTED:aws-access-key] here';
select 'redact_password_assignment', redact_snippet('password=hunter2secret!') = 'password=[REDACTED:password]';
select 'redact_bearer_jwt', redact_snippet('curl -H "Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"') = 'curl -H "Authorization: Bearer [REDACTED:jwt]"';
select 'redact_no_secret_in_output', instr(redact_snippet('token ghp_R8aK2mQ9xT4vB7nL1pZ6wE3yH5cJ0dF2gS8u end'), 'R8aK2mQ9') = 0;
select 'plain_prose_unchanged', redact_snippet('Please rotate the API key and the GitHub token before Friday.') = 'Please rotate the API key and the GitHub token before Friday.';
select 'placeholder_unchanged', redact_snippet('the token was ghp_') = 'the token was ghp_';
select 'documentation_example_key_unchanged', redact_snippet('AKIAIOSFODNN7EXAMPLE') = 'AKIAIOSFODNN7EXAMPLE';
select 'multibyte_prose_unchanged', redact_snippet('東京都庁の近く, Straße, ΟΔΥΣΣΕΥΣ') = '東京都庁の近く, Straße, ΟΔΥΣΣΕΥΣ';
select 'cut_with_ellipsis', redact_snippet('hello plain prose', 5) = 'hell…';
select 'cut_counts_characters', redact_snippet('東京都庁の近く', 4) = '東京都…';
select 'cut_drops_space_before_ellipsis', redact_snippet('ab  cd', 4) = 'ab…';
select 'cut_keeps_combining_mark_with_letter', redact_snippet('cafe' || char(769) || ' noir', 5) = 'caf…';
select 'cut_keeps_emoji_modifier', redact_snippet('ship it 👍🏽 today', 10) = 'ship it…';
select 'cut_keeps_flag_whole', redact_snippet('from 🇫🇮 with love', 7) = 'from…';
select 'cut_leaves_mask_out_whole', redact_snippet('token ghp_R8aK2mQ9xT4vB7nL1pZ6wE3yH5cJ0dF2gS8u end', 29) = 'token…';
select 'cut_after_whole_mask', redact_snippet('token ghp_R8aK2mQ9xT4vB7nL1pZ6wE3yH5cJ0dF2gS8u end', 30) = 'token [REDACTED:github-token]…';
select 'no_cut_when_it_fits', redact_snippet('東京都', 3) = '東京都';
select 'no_cut_without_max_chars', redact_snippet('hello plain prose', NULL) = 'hello plain prose';
select 'redact_null', redact_snippet(NULL) IS NULL;
select 'redact_empty', redact_snippet('', 3) = '';

-- sessions_match(query [, prefix]): each white-space separated term a phrase, terms ANDed, FTS5 syntax literal
select 'match_operators_literal', sessions_match('a OR b') = '"a" AND "OR" AND "b"';
select 'match_not_near_literal', sessions_match('NOT NEAR(a b)') = '"NOT" AND "NEAR(a" AND "b)"';
select 'match_star_literal', sessions_match('fold*') = '"fold*"';
select 'match_column_filter_literal', sessions_match('body:secret') = '"body:secret"';
select 'match_caret_literal', sessions_match('^start') = '"^start"';
select 'match_quotes_escaped', sessions_match('say "hi"') = '"say" AND """hi"""';
select 'match_white_space', sessions_match('  a' || char(9) || 'b' || char(10) || 'c' || char(160) || 'd ') = '"a" AND "b" AND "c" AND "d"';
select 'match_ideographic_space', sessions_match('東京' || char(12288) || '大阪') = '"東京" AND "大阪"';
select 'match_text_kept_as_written', sessions_match('Straße') = '"Straße"';
select 'match_prefix', sessions_match('fold', 1) = '"fold"*';
select 'match_prefix_last_term_only', sessions_match('fold bar', 1) = '"fold" AND "bar"*';
select 'match_prefix_off', sessions_match('fold', 0) = '"fold"';
select 'match_prefix_han', sessions_match('東京', 1) = '"東京"*';
select 'match_punctuation_terms_dropped', sessions_match('... fold !!!') = '"fold"';
select 'match_prefix_skips_dropped_term', sessions_match('fold ...', 1) = '"fold"*';

-- sessions_match in a real MATCH: what it finds
create virtual table m using fts5(body, tokenize='sessionsearch');
insert into m(rowid, body) values (1, 'cats OR dogs'), (2, 'cats and dogs'), (3, 'folding chairs'), (4, 'say "hi" to NEAR(a b)'), (5, '東京都と大阪府');
select 'search_or_is_a_word', (select group_concat(rowid) from (select rowid from m where m match sessions_match('cats OR dogs') order by rowid)) = '1';
select 'search_terms_anded', (select group_concat(rowid) from (select rowid from m where m match sessions_match('dogs cats') order by rowid)) = '1,2';
select 'search_prefix', (select group_concat(rowid) from (select rowid from m where m match sessions_match('chairs fold', 1) order by rowid)) = '3';
select 'search_no_prefix', coalesce((select group_concat(rowid) from (select rowid from m where m match sessions_match('chairs fold') order by rowid)), '') = '';
select 'search_syntax_as_text', (select group_concat(rowid) from (select rowid from m where m match sessions_match('"hi" NEAR(a') order by rowid)) = '4';
select 'search_han_terms', (select group_concat(rowid) from (select rowid from m where m match sessions_match('大阪 東京') order by rowid)) = '5';
select 'search_han_prefix', (select group_concat(rowid) from (select rowid from m where m match sessions_match('大', 1) order by rowid)) = '5';
