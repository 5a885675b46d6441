-- The tokenizer `sessionsearch` through real FTS5, the same in every host:
-- the sqlite3 shell, Python's sqlite3, Node's better-sqlite3 and the Go
-- driver (tests/hosts_test.go runs this file in all four). One statement a
-- line; each check prints `case_id|1`. A search check lists the rowids a
-- MATCH finds, in order ('' for none), in table t (the default `cjk
-- unigram`) and, with the suffix _t3, in table t3 (`cjk trigram`): both
-- modes have the same search semantics (docs/tokenizer.md). Rowids group the
-- documents by the kind of rule they check: 1xx equivalence, 2xx case
-- folding, 3xx diacritics, 4xx word boundaries, 5xx identifiers, 6xx
-- n-gram scripts, 7xx prefix/phrase/NEAR, 8xx bad input, 9xx emoji,
-- 1001 highlight and snippets. Every search runs over all documents, so an
-- extra row anywhere fails. Then token-level checks (sessionsearch_tokens)
-- and a 16 MiB document.

create virtual table t using fts5(body, tokenize='sessionsearch');
create virtual table t3 using fts5(body, tokenize='sessionsearch cjk trigram');

-- 1. Canonical and compatibility equivalence: NFC, NFD, NFKC, full width, ligatures, compatibility digits, decimal digits of every script
insert into t(rowid, body) values (101, 'cafe' || char(769) || ' au lait');
insert into t(rowid, body) values (102, 'café crème');
insert into t(rowid, body) values (103, 'ＡＢＣ１２３ model');
insert into t(rowid, body) values (104, 'ｶﾞｯｺｳ');
insert into t(rowid, body) values (105, 'ﬁnance report');
insert into t(rowid, body) values (106, 'step ① done');
insert into t(rowid, body) values (107, 'area in m²');
insert into t(rowid, body) values (108, 'chapter Ⅻ');
insert into t(rowid, body) values (109, 'سال ۱۳۷۹');
insert into t(rowid, body) values (110, 'अंक १२३');
insert into t(rowid, body) values (111, 'เลข ๑๒๓');

-- 2. Full case folding: ß, final sigma, Turkish İ and ı, Cherokee, and a capital inside a query word
insert into t(rowid, body) values (201, 'Die Straße ist lang');
insert into t(rowid, body) values (202, 'STRAẞE');
insert into t(rowid, body) values (203, 'ΟΔΥΣΣΕΥΣ');
insert into t(rowid, body) values (204, 'Οδυσσεύς returns');
insert into t(rowid, body) values (205, 'İstanbul''da');
insert into t(rowid, body) values (206, 'ıstanbul');
insert into t(rowid, body) values (207, 'ᏣᎳᎩ');
insert into t(rowid, body) values (208, 'we use github daily');
insert into t(rowid, body) values (209, 'GITHUB actions');
insert into t(rowid, body) values (210, 'JavaScript code');
insert into t(rowid, body) values (211, 'an ios app');

-- 3. Diacritics: optional ones fold, letter marks stay (й, ї, Indic matras and nukta, Thai tone marks, dakuten); letter variants of the Arabic script, Latin letters with attachments, Indic do-not-use sequences
insert into t(rowid, body) values (301, 'Élève à l''école');
insert into t(rowid, body) values (302, 'Tiếng Việt rất hay');
insert into t(rowid, body) values (303, 'Tie' || char(770, 769) || 'ng');
insert into t(rowid, body) values (304, 'Đặng Thị');
insert into t(rowid, body) values (305, 'Øresund bridge');
insert into t(rowid, body) values (306, 'Łódź');
insert into t(rowid, body) values (307, 'Ħamrun');
insert into t(rowid, body) values (308, 'Æsir and cræzy');
insert into t(rowid, body) values (309, 'Œuvre complète');
insert into t(rowid, body) values (310, 'Καλημέρα κόσμε');
insert into t(rowid, body) values (311, 'Μάϊος');
insert into t(rowid, body) values (312, 'ёлка');
insert into t(rowid, body) values (313, 'йод');
insert into t(rowid, body) values (314, 'молоко' || char(769));
insert into t(rowid, body) values (315, 'їжак');
insert into t(rowid, body) values (316, 'العَرَبِيَّة');
insert into t(rowid, body) values (317, 'عـــربي');
insert into t(rowid, body) values (318, 'أحمد و إسلام و آمن');
insert into t(rowid, body) values (319, 'مؤمن');
insert into t(rowid, body) values (320, 'שָׁלוֹם');
insert into t(rowid, body) values (321, 'हिन्दी भाषा');
insert into t(rowid, body) values (322, 'किताब');
insert into t(rowid, body) values (323, 'ज़रूरी');
insert into t(rowid, body) values (324, 'বাংলা ভাষা');
insert into t(rowid, body) values (325, 'がっこう');
insert into t(rowid, body) values (326, 'ภาษาไทยง่ายนิดเดียว');
insert into t(rowid, body) values (327, 'Ðakovo and verður');
insert into t(rowid, body) values (328, 'ᴛᴇsᴛ ɵ ʉ');
insert into t(rowid, body) values (329, 'þorn');
insert into t(rowid, body) values (330, 'پروندهٔ');
insert into t(rowid, body) values (331, 'فاطمة');
insert into t(rowid, body) values (332, 'کتاب های');
insert into t(rowid, body) values (333, 'अाज');
insert into t(rowid, body) values (334, 'ত্' || char(8205) || 'কার');

-- 4. Word boundaries, script changes and invisible format characters; Persian words joined by a ZWNJ
insert into t(rowid, body) values (401, '한국어를 배웁니다');
insert into t(rowid, body) values (402, 'ID를 입력하세요');
insert into t(rowid, body) values (403, 'ユーザIDを入力');
insert into t(rowid, body) values (404, 'infor' || char(173) || 'mation');
insert into t(rowid, body) values (405, 'infor' || char(8205) || 'mation');
insert into t(rowid, body) values (406, 'می' || char(8204) || 'خواهم');
insert into t(rowid, body) values (407, 'infor' || char(8203) || 'mation');
insert into t(rowid, body) values (408, 'پیش' || char(8204) || 'فرض');

-- 5. Identifiers, file names, domains, versions, numbers, apostrophes: whole and by parts
insert into t(rowid, body) values (501, 'call parse_session_key now');
insert into t(rowid, body) values (502, 'call parseSessionKey now');
insert into t(rowid, body) values (503, 'an HTTPServer here');
insert into t(rowid, body) values (504, 'open report.txt please');
insert into t(rowid, body) values (505, 'see www.example.com today');
insert into t(rowid, body) values (506, 'upgrade to v1.2.3 now');
insert into t(rowid, body) values (507, 'total 1,234.56 EUR');
insert into t(rowid, body) values (508, 'I can''t stop');
insert into t(rowid, body) values (509, 'I can’t stop');
insert into t(rowid, body) values (510, 'fetch https://api.example.com/v1/sessions?limit=10');
insert into t(rowid, body) values (511, 'mail ops@example.com');
insert into t(rowid, body) values (512, 'the NOT operator');
insert into t(rowid, body) values (513, 'open the URLs and IDs');
insert into t(rowid, body) values (514, 'call getHTTPResponseCode now');

-- 6. Han, kana, Hangul, Thai, Lao, Khmer, Myanmar: substrings of any length, never across punctuation or space
insert into t(rowid, body) values (601, '我住在東京都庁の近く');
insert into t(rowid, body) values (602, '東、京');
insert into t(rowid, body) values (603, '東 京');
insert into t(rowid, body) values (604, '我住在東京');
insert into t(rowid, body) values (605, '日本語のテキストです');
insert into t(rowid, body) values (606, '대한민국');
insert into t(rowid, body) values (607, 'ພາສາລາວ');
insert into t(rowid, body) values (608, 'ភាសាខ្មែរ');
insert into t(rowid, body) values (609, 'မြန်မာဘာသာ');
insert into t(rowid, body) values (610, '東京都');
insert into t(rowid, body) values (611, '大阪に行く');

-- 7. Prefix queries, phrases and NEAR
insert into t(rowid, body) values (701, 'folding and folded');
insert into t(rowid, body) values (702, 'the quick brown fox jumps');
insert into t(rowid, body) values (703, 'quick fox');

-- 8. Any bytes: invalid UTF-8 and NUL insert fine (the 16 MiB document is at the end)
insert into t(rowid, body) values (801, CAST(X'666F806F20626172' AS TEXT));
insert into t(rowid, body) values (802, CAST(X'6E756C00627974652068657265' AS TEXT));
insert into t(rowid, body) values (803, CAST(X'C3' AS TEXT));
insert into t(rowid, body) values (804, CAST(X'E69DB1E4BAE983BD' AS TEXT));
insert into t(rowid, body) values (805, CAST(X'FFFE00' AS TEXT));

-- 9. Emoji and symbols
insert into t(rowid, body) values (901, 'ship it 👍 today');
insert into t(rowid, body) values (902, 'ship it 👍🏽 today');
insert into t(rowid, body) values (903, 'from 🇫🇮 with love');

-- 10. highlight(), snippet() and sessionsearch_snippet() cut the original text at the right bytes
insert into t(rowid, body) values (1001, 'Der Bericht über die Brücke in Köln wurde gestern veröffentlicht und sofort überall gelesen.');

insert into t3(rowid, body) select rowid, body from t;
select 'all_documents_inserted', (select count(*) from t) = 101 and (select count(*) from t3) = 101;
select 'invalid_utf8_stored_as_is', (select hex(body) from t where rowid = 801) = '666F806F20626172';
select 'nul_stored_as_is', (select length(cast(body as blob)) from t3 where rowid = 802) = 13;

-- 1. Canonical and compatibility equivalence: NFC, NFD, NFKC, full width, ligatures, compatibility digits, decimal digits of every script
select 'nfc_query_finds_nfd_and_nfc', coalesce((select group_concat(rowid) from (select rowid from t where t match '"café"' order by rowid)), '') = '101,102';
select 'nfc_query_finds_nfd_and_nfc_t3', coalesce((select group_concat(rowid) from (select rowid from t3 where t3 match '"café"' order by rowid)), '') = '101,102';
select 'nfd_query_finds_nfd_and_nfc', coalesce((select group_concat(rowid) from (select rowid from t where t match '"cafe' || char(769) || '"' order by rowid)), '') = '101,102';
select 'nfd_query_finds_nfd_and_nfc_t3', coalesce((select group_concat(rowid) from (select rowid from t3 where t3 match '"cafe' || char(769) || '"' order by rowid)), '') = '101,102';
select 'unaccented_query', coalesce((select group_concat(rowid) from (select rowid from t where t match '"cafe"' order by rowid)), '') = '101,102';
select 'unaccented_query_t3', coalesce((select group_concat(rowid) from (select rowid from t3 where t3 match '"cafe"' order by rowid)), '') = '101,102';
select 'full_width_document', coalesce((select group_concat(rowid) from (select rowid from t where t match '"abc123"' order by rowid)), '') = '103';
select 'full_width_document_t3', coalesce((select group_concat(rowid) from (select rowid from t3 where t3 match '"abc123"' order by rowid)), '') = '103';
select 'full_width_query', coalesce((select group_concat(rowid) from (select rowid from t where t match '"ＡＢＣ１２３"' order by rowid)), '') = '103';
select 'full_width_query_t3', coalesce((select group_concat(rowid) from (select rowid from t3 where t3 match '"ＡＢＣ１２３"' order by rowid)), '') = '103';
select 'half_width_katakana', coalesce((select group_concat(rowid) from (select rowid from t where t match '"ガッコウ"' order by rowid)), '') = '104';
select 'half_width_katakana_t3', coalesce((select group_concat(rowid) from (select rowid from t3 where t3 match '"ガッコウ"' order by rowid)), '') = '104';
select 'half_width_katakana_query', coalesce((select group_concat(rowid) from (select rowid from t where t match '"ｶﾞｯｺｳ"' order by rowid)), '') = '104';
select 'half_width_katakana_query_t3', coalesce((select group_concat(rowid) from (select rowid from t3 where t3 match '"ｶﾞｯｺｳ"' order by rowid)), '') = '104';
select 'ligature_fi_document', coalesce((select group_concat(rowid) from (select rowid from t where t match '"finance"' order by rowid)), '') = '105';
select 'ligature_fi_document_t3', coalesce((select group_concat(rowid) from (select rowid from t3 where t3 match '"finance"' order by rowid)), '') = '105';
select 'ligature_fi_query', coalesce((select group_concat(rowid) from (select rowid from t where t match '"ﬁnance"' order by rowid)), '') = '105';
select 'ligature_fi_query_t3', coalesce((select group_concat(rowid) from (select rowid from t3 where t3 match '"ﬁnance"' order by rowid)), '') = '105';
select 'circled_digit', coalesce((select group_concat(rowid) from (select rowid from t where t match '"1"' order by rowid)), '') = '106,507';
select 'circled_digit_t3', coalesce((select group_concat(rowid) from (select rowid from t3 where t3 match '"1"' order by rowid)), '') = '106,507';
select 'superscript_digit', coalesce((select group_concat(rowid) from (select rowid from t where t match '"m2"' order by rowid)), '') = '107';
select 'superscript_digit_t3', coalesce((select group_concat(rowid) from (select rowid from t3 where t3 match '"m2"' order by rowid)), '') = '107';
select 'roman_numeral', coalesce((select group_concat(rowid) from (select rowid from t where t match '"xii"' order by rowid)), '') = '108';
select 'roman_numeral_t3', coalesce((select group_concat(rowid) from (select rowid from t3 where t3 match '"xii"' order by rowid)), '') = '108';
select 'persian_digits', coalesce((select group_concat(rowid) from (select rowid from t where t match '"1379"' order by rowid)), '') = '109';
select 'persian_digits_t3', coalesce((select group_concat(rowid) from (select rowid from t3 where t3 match '"1379"' order by rowid)), '') = '109';
select 'persian_digits_query', coalesce((select group_concat(rowid) from (select rowid from t where t match '"۱۳۷۹"' order by rowid)), '') = '109';
select 'persian_digits_query_t3', coalesce((select group_concat(rowid) from (select rowid from t3 where t3 match '"۱۳۷۹"' order by rowid)), '') = '109';
select 'native_digits', coalesce((select group_concat(rowid) from (select rowid from t where t match '"123"' order by rowid)), '') = '110,111';
select 'native_digits_t3', coalesce((select group_concat(rowid) from (select rowid from t3 where t3 match '"123"' order by rowid)), '') = '110,111';
select 'devanagari_digits_query', coalesce((select group_concat(rowid) from (select rowid from t where t match '"१२३"' order by rowid)), '') = '110,111';
select 'devanagari_digits_query_t3', coalesce((select group_concat(rowid) from (select rowid from t3 where t3 match '"१२३"' order by rowid)), '') = '110,111';

-- 2. Full case folding: ß, final sigma, Turkish İ and ı, Cherokee, and a capital inside a query word
select 'sharp_s_upper_query', coalesce((select group_concat(rowid) from (select rowid from t where t match '"STRASSE"' order by rowid)), '') = '201,202';
select 'sharp_s_upper_query_t3', coalesce((select group_concat(rowid) from (select rowid from t3 where t3 match '"STRASSE"' order by rowid)), '') = '201,202';
select 'sharp_s_lower_query', coalesce((select group_concat(rowid) from (select rowid from t where t match '"strasse"' order by rowid)), '') = '201,202';
select 'sharp_s_lower_query_t3', coalesce((select group_concat(rowid) from (select rowid from t3 where t3 match '"strasse"' order by rowid)), '') = '201,202';
select 'sharp_s_query', coalesce((select group_concat(rowid) from (select rowid from t where t match '"straße"' order by rowid)), '') = '201,202';
select 'sharp_s_query_t3', coalesce((select group_concat(rowid) from (select rowid from t3 where t3 match '"straße"' order by rowid)), '') = '201,202';
select 'capital_sharp_s_query', coalesce((select group_concat(rowid) from (select rowid from t where t match '"STRAẞE"' order by rowid)), '') = '201,202';
select 'capital_sharp_s_query_t3', coalesce((select group_concat(rowid) from (select rowid from t3 where t3 match '"STRAẞE"' order by rowid)), '') = '201,202';
select 'greek_final_sigma', coalesce((select group_concat(rowid) from (select rowid from t where t match '"Οδυσσεύς"' order by rowid)), '') = '203,204';
select 'greek_final_sigma_t3', coalesce((select group_concat(rowid) from (select rowid from t3 where t3 match '"Οδυσσεύς"' order by rowid)), '') = '203,204';
select 'greek_upper_query', coalesce((select group_concat(rowid) from (select rowid from t where t match '"ΟΔΥΣΣΕΥΣ"' order by rowid)), '') = '203,204';
select 'greek_upper_query_t3', coalesce((select group_concat(rowid) from (select rowid from t3 where t3 match '"ΟΔΥΣΣΕΥΣ"' order by rowid)), '') = '203,204';
select 'turkish_dotted_capital_i', coalesce((select group_concat(rowid) from (select rowid from t where t match '"istanbul"' order by rowid)), '') = '205,206';
select 'turkish_dotted_capital_i_t3', coalesce((select group_concat(rowid) from (select rowid from t3 where t3 match '"istanbul"' order by rowid)), '') = '205,206';
select 'turkish_upper_query', coalesce((select group_concat(rowid) from (select rowid from t where t match '"İSTANBUL"' order by rowid)), '') = '205,206';
select 'turkish_upper_query_t3', coalesce((select group_concat(rowid) from (select rowid from t3 where t3 match '"İSTANBUL"' order by rowid)), '') = '205,206';
select 'cherokee', coalesce((select group_concat(rowid) from (select rowid from t where t match '"ꮳꮃꭹ"' order by rowid)), '') = '207';
select 'cherokee_t3', coalesce((select group_concat(rowid) from (select rowid from t3 where t3 match '"ꮳꮃꭹ"' order by rowid)), '') = '207';
select 'query_inner_capital', coalesce((select group_concat(rowid) from (select rowid from t where t match '"GitHub"' order by rowid)), '') = '208,209';
select 'query_inner_capital_t3', coalesce((select group_concat(rowid) from (select rowid from t3 where t3 match '"GitHub"' order by rowid)), '') = '208,209';
select 'query_lower_case', coalesce((select group_concat(rowid) from (select rowid from t where t match 'github' order by rowid)), '') = '208,209';
select 'query_lower_case_t3', coalesce((select group_concat(rowid) from (select rowid from t3 where t3 match 'github' order by rowid)), '') = '208,209';
select 'query_upper_case', coalesce((select group_concat(rowid) from (select rowid from t where t match 'GITHUB' order by rowid)), '') = '208,209';
select 'query_upper_case_t3', coalesce((select group_concat(rowid) from (select rowid from t3 where t3 match 'GITHUB' order by rowid)), '') = '208,209';
select 'query_inner_capital_javascript', coalesce((select group_concat(rowid) from (select rowid from t where t match 'JavaScript' order by rowid)), '') = '210';
select 'query_inner_capital_javascript_t3', coalesce((select group_concat(rowid) from (select rowid from t3 where t3 match 'JavaScript' order by rowid)), '') = '210';
select 'query_inner_capital_ios', coalesce((select group_concat(rowid) from (select rowid from t where t match 'iOS' order by rowid)), '') = '211';
select 'query_inner_capital_ios_t3', coalesce((select group_concat(rowid) from (select rowid from t3 where t3 match 'iOS' order by rowid)), '') = '211';

-- 3. Diacritics: optional ones fold, letter marks stay (й, ї, Indic matras and nukta, Thai tone marks, dakuten); letter variants of the Arabic script, Latin letters with attachments, Indic do-not-use sequences
select 'french_accents', coalesce((select group_concat(rowid) from (select rowid from t where t match '"eleve"' order by rowid)), '') = '301';
select 'french_accents_t3', coalesce((select group_concat(rowid) from (select rowid from t3 where t3 match '"eleve"' order by rowid)), '') = '301';
select 'french_elision', coalesce((select group_concat(rowid) from (select rowid from t where t match '"ecole"' order by rowid)), '') = '301';
select 'french_elision_t3', coalesce((select group_concat(rowid) from (select rowid from t3 where t3 match '"ecole"' order by rowid)), '') = '301';
select 'vietnamese_stacked', coalesce((select group_concat(rowid) from (select rowid from t where t match '"tieng"' order by rowid)), '') = '302,303';
select 'vietnamese_stacked_t3', coalesce((select group_concat(rowid) from (select rowid from t3 where t3 match '"tieng"' order by rowid)), '') = '302,303';
select 'vietnamese_query_nfc', coalesce((select group_concat(rowid) from (select rowid from t where t match '"tiếng"' order by rowid)), '') = '302,303';
select 'vietnamese_query_nfc_t3', coalesce((select group_concat(rowid) from (select rowid from t3 where t3 match '"tiếng"' order by rowid)), '') = '302,303';
select 'vietnamese_d_stroke', coalesce((select group_concat(rowid) from (select rowid from t where t match '"dang"' order by rowid)), '') = '304';
select 'vietnamese_d_stroke_t3', coalesce((select group_concat(rowid) from (select rowid from t3 where t3 match '"dang"' order by rowid)), '') = '304';
select 'danish_o_stroke', coalesce((select group_concat(rowid) from (select rowid from t where t match '"oresund"' order by rowid)), '') = '305';
select 'danish_o_stroke_t3', coalesce((select group_concat(rowid) from (select rowid from t3 where t3 match '"oresund"' order by rowid)), '') = '305';
select 'polish_l_stroke', coalesce((select group_concat(rowid) from (select rowid from t where t match '"lodz"' order by rowid)), '') = '306';
select 'polish_l_stroke_t3', coalesce((select group_concat(rowid) from (select rowid from t3 where t3 match '"lodz"' order by rowid)), '') = '306';
select 'maltese_h_stroke', coalesce((select group_concat(rowid) from (select rowid from t where t match '"hamrun"' order by rowid)), '') = '307';
select 'maltese_h_stroke_t3', coalesce((select group_concat(rowid) from (select rowid from t3 where t3 match '"hamrun"' order by rowid)), '') = '307';
select 'ae_ligature', coalesce((select group_concat(rowid) from (select rowid from t where t match '"aesir"' order by rowid)), '') = '308';
select 'ae_ligature_t3', coalesce((select group_concat(rowid) from (select rowid from t3 where t3 match '"aesir"' order by rowid)), '') = '308';
select 'ae_inside_word', coalesce((select group_concat(rowid) from (select rowid from t where t match '"craezy"' order by rowid)), '') = '308';
select 'ae_inside_word_t3', coalesce((select group_concat(rowid) from (select rowid from t3 where t3 match '"craezy"' order by rowid)), '') = '308';
select 'oe_ligature', coalesce((select group_concat(rowid) from (select rowid from t where t match '"oeuvre"' order by rowid)), '') = '309';
select 'oe_ligature_t3', coalesce((select group_concat(rowid) from (select rowid from t3 where t3 match '"oeuvre"' order by rowid)), '') = '309';
select 'greek_tonos', coalesce((select group_concat(rowid) from (select rowid from t where t match '"καλημερα"' order by rowid)), '') = '310';
select 'greek_tonos_t3', coalesce((select group_concat(rowid) from (select rowid from t3 where t3 match '"καλημερα"' order by rowid)), '') = '310';
select 'greek_dialytika', coalesce((select group_concat(rowid) from (select rowid from t where t match '"μαιος"' order by rowid)), '') = '311';
select 'greek_dialytika_t3', coalesce((select group_concat(rowid) from (select rowid from t3 where t3 match '"μαιος"' order by rowid)), '') = '311';
select 'cyrillic_yo_folds', coalesce((select group_concat(rowid) from (select rowid from t where t match '"елка"' order by rowid)), '') = '312';
select 'cyrillic_yo_folds_t3', coalesce((select group_concat(rowid) from (select rowid from t3 where t3 match '"елка"' order by rowid)), '') = '312';
select 'cyrillic_yo_query', coalesce((select group_concat(rowid) from (select rowid from t where t match '"ёлка"' order by rowid)), '') = '312';
select 'cyrillic_yo_query_t3', coalesce((select group_concat(rowid) from (select rowid from t3 where t3 match '"ёлка"' order by rowid)), '') = '312';
select 'cyrillic_short_i_stays', coalesce((select group_concat(rowid) from (select rowid from t where t match '"иод"' order by rowid)), '') = '';
select 'cyrillic_short_i_stays_t3', coalesce((select group_concat(rowid) from (select rowid from t3 where t3 match '"иод"' order by rowid)), '') = '';
select 'cyrillic_short_i', coalesce((select group_concat(rowid) from (select rowid from t where t match '"йод"' order by rowid)), '') = '313';
select 'cyrillic_short_i_t3', coalesce((select group_concat(rowid) from (select rowid from t3 where t3 match '"йод"' order by rowid)), '') = '313';
select 'cyrillic_stress_mark', coalesce((select group_concat(rowid) from (select rowid from t where t match '"молоко"' order by rowid)), '') = '314';
select 'cyrillic_stress_mark_t3', coalesce((select group_concat(rowid) from (select rowid from t3 where t3 match '"молоко"' order by rowid)), '') = '314';
select 'ukrainian_yi_stays', coalesce((select group_concat(rowid) from (select rowid from t where t match '"іжак"' order by rowid)), '') = '';
select 'ukrainian_yi_stays_t3', coalesce((select group_concat(rowid) from (select rowid from t3 where t3 match '"іжак"' order by rowid)), '') = '';
select 'eth_and_d_with_stroke', coalesce((select group_concat(rowid) from (select rowid from t where t match '"dakovo" AND "verdur"' order by rowid)), '') = '327';
select 'eth_and_d_with_stroke_t3', coalesce((select group_concat(rowid) from (select rowid from t3 where t3 match '"dakovo" AND "verdur"' order by rowid)), '') = '327';
select 'small_capitals', coalesce((select group_concat(rowid) from (select rowid from t where t match '"test"' order by rowid)), '') = '328';
select 'small_capitals_t3', coalesce((select group_concat(rowid) from (select rowid from t3 where t3 match '"test"' order by rowid)), '') = '328';
select 'barred_o', coalesce((select group_concat(rowid) from (select rowid from t where t match '"o" AND "u"' order by rowid)), '') = '328';
select 'barred_o_t3', coalesce((select group_concat(rowid) from (select rowid from t3 where t3 match '"o" AND "u"' order by rowid)), '') = '328';
select 'thorn_stays', coalesce((select group_concat(rowid) from (select rowid from t where t match '"thorn"' order by rowid)), '') = '';
select 'thorn_stays_t3', coalesce((select group_concat(rowid) from (select rowid from t3 where t3 match '"thorn"' order by rowid)), '') = '';
select 'thorn', coalesce((select group_concat(rowid) from (select rowid from t where t match '"Þorn"' order by rowid)), '') = '329';
select 'thorn_t3', coalesce((select group_concat(rowid) from (select rowid from t3 where t3 match '"Þorn"' order by rowid)), '') = '329';
select 'persian_ezafe', coalesce((select group_concat(rowid) from (select rowid from t where t match '"پرونده"' order by rowid)), '') = '330';
select 'persian_ezafe_t3', coalesce((select group_concat(rowid) from (select rowid from t3 where t3 match '"پرونده"' order by rowid)), '') = '330';
select 'teh_marbuta', coalesce((select group_concat(rowid) from (select rowid from t where t match '"فاطمه"' order by rowid)), '') = '331';
select 'teh_marbuta_t3', coalesce((select group_concat(rowid) from (select rowid from t3 where t3 match '"فاطمه"' order by rowid)), '') = '331';
select 'keheh_and_farsi_yeh', coalesce((select group_concat(rowid) from (select rowid from t where t match '"كتاب هاي"' order by rowid)), '') = '332';
select 'keheh_and_farsi_yeh_t3', coalesce((select group_concat(rowid) from (select rowid from t3 where t3 match '"كتاب هاي"' order by rowid)), '') = '332';
select 'devanagari_a_aa', coalesce((select group_concat(rowid) from (select rowid from t where t match '"आज"' order by rowid)), '') = '333';
select 'devanagari_a_aa_t3', coalesce((select group_concat(rowid) from (select rowid from t3 where t3 match '"आज"' order by rowid)), '') = '333';
select 'bengali_khanda_ta', coalesce((select group_concat(rowid) from (select rowid from t where t match '"ৎকার"' order by rowid)), '') = '334';
select 'bengali_khanda_ta_t3', coalesce((select group_concat(rowid) from (select rowid from t3 where t3 match '"ৎকার"' order by rowid)), '') = '334';
select 'arabic_harakat', coalesce((select group_concat(rowid) from (select rowid from t where t match '"العربية"' order by rowid)), '') = '316';
select 'arabic_harakat_t3', coalesce((select group_concat(rowid) from (select rowid from t3 where t3 match '"العربية"' order by rowid)), '') = '316';
select 'arabic_tatweel', coalesce((select group_concat(rowid) from (select rowid from t where t match '"عربي"' order by rowid)), '') = '317';
select 'arabic_tatweel_t3', coalesce((select group_concat(rowid) from (select rowid from t3 where t3 match '"عربي"' order by rowid)), '') = '317';
select 'arabic_hamza_alef', coalesce((select group_concat(rowid) from (select rowid from t where t match '"احمد"' order by rowid)), '') = '318';
select 'arabic_hamza_alef_t3', coalesce((select group_concat(rowid) from (select rowid from t3 where t3 match '"احمد"' order by rowid)), '') = '318';
select 'arabic_hamza_below', coalesce((select group_concat(rowid) from (select rowid from t where t match '"اسلام"' order by rowid)), '') = '318';
select 'arabic_hamza_below_t3', coalesce((select group_concat(rowid) from (select rowid from t3 where t3 match '"اسلام"' order by rowid)), '') = '318';
select 'arabic_madda', coalesce((select group_concat(rowid) from (select rowid from t where t match '"امن"' order by rowid)), '') = '318';
select 'arabic_madda_t3', coalesce((select group_concat(rowid) from (select rowid from t3 where t3 match '"امن"' order by rowid)), '') = '318';
select 'arabic_waw_hamza_stays', coalesce((select group_concat(rowid) from (select rowid from t where t match '"مومن"' order by rowid)), '') = '';
select 'arabic_waw_hamza_stays_t3', coalesce((select group_concat(rowid) from (select rowid from t3 where t3 match '"مومن"' order by rowid)), '') = '';
select 'hebrew_niqqud', coalesce((select group_concat(rowid) from (select rowid from t where t match '"שלום"' order by rowid)), '') = '320';
select 'hebrew_niqqud_t3', coalesce((select group_concat(rowid) from (select rowid from t3 where t3 match '"שלום"' order by rowid)), '') = '320';
select 'hindi_conjunct', coalesce((select group_concat(rowid) from (select rowid from t where t match '"हिन्दी"' order by rowid)), '') = '321';
select 'hindi_conjunct_t3', coalesce((select group_concat(rowid) from (select rowid from t3 where t3 match '"हिन्दी"' order by rowid)), '') = '321';
select 'hindi_matra_not_split', coalesce((select group_concat(rowid) from (select rowid from t where t match '"हन"' order by rowid)), '') = '';
select 'hindi_matra_not_split_t3', coalesce((select group_concat(rowid) from (select rowid from t3 where t3 match '"हन"' order by rowid)), '') = '';
select 'hindi_vowel_sign_kept', coalesce((select group_concat(rowid) from (select rowid from t where t match '"कताब"' order by rowid)), '') = '';
select 'hindi_vowel_sign_kept_t3', coalesce((select group_concat(rowid) from (select rowid from t3 where t3 match '"कताब"' order by rowid)), '') = '';
select 'hindi_vowel_sign', coalesce((select group_concat(rowid) from (select rowid from t where t match '"किताब"' order by rowid)), '') = '322';
select 'hindi_vowel_sign_t3', coalesce((select group_concat(rowid) from (select rowid from t3 where t3 match '"किताब"' order by rowid)), '') = '322';
select 'hindi_nukta_decomposed', coalesce((select group_concat(rowid) from (select rowid from t where t match '"ज' || char(2364) || 'रूरी"' order by rowid)), '') = '323';
select 'hindi_nukta_decomposed_t3', coalesce((select group_concat(rowid) from (select rowid from t3 where t3 match '"ज' || char(2364) || 'रूरी"' order by rowid)), '') = '323';
select 'bengali', coalesce((select group_concat(rowid) from (select rowid from t where t match '"বাংলা"' order by rowid)), '') = '324';
select 'bengali_t3', coalesce((select group_concat(rowid) from (select rowid from t3 where t3 match '"বাংলা"' order by rowid)), '') = '324';
select 'japanese_dakuten_kept', coalesce((select group_concat(rowid) from (select rowid from t where t match '"かっこう"' order by rowid)), '') = '';
select 'japanese_dakuten_kept_t3', coalesce((select group_concat(rowid) from (select rowid from t3 where t3 match '"かっこう"' order by rowid)), '') = '';
select 'japanese_dakuten_nfd', coalesce((select group_concat(rowid) from (select rowid from t where t match '"か' || char(12441) || 'っこう"' order by rowid)), '') = '325';
select 'japanese_dakuten_nfd_t3', coalesce((select group_concat(rowid) from (select rowid from t3 where t3 match '"か' || char(12441) || 'っこう"' order by rowid)), '') = '325';
select 'japanese_substring_after_dakuten', coalesce((select group_concat(rowid) from (select rowid from t where t match '"っこう"' order by rowid)), '') = '325';
select 'japanese_substring_after_dakuten_t3', coalesce((select group_concat(rowid) from (select rowid from t3 where t3 match '"っこう"' order by rowid)), '') = '325';
select 'thai_tone_mark_kept', coalesce((select group_concat(rowid) from (select rowid from t where t match '"งาย"' order by rowid)), '') = '';
select 'thai_tone_mark_kept_t3', coalesce((select group_concat(rowid) from (select rowid from t3 where t3 match '"งาย"' order by rowid)), '') = '';
select 'thai_with_tone_mark', coalesce((select group_concat(rowid) from (select rowid from t where t match '"ง่าย"' order by rowid)), '') = '326';
select 'thai_with_tone_mark_t3', coalesce((select group_concat(rowid) from (select rowid from t3 where t3 match '"ง่าย"' order by rowid)), '') = '326';

-- 4. Word boundaries, script changes and invisible format characters; Persian words joined by a ZWNJ
select 'korean_particle', coalesce((select group_concat(rowid) from (select rowid from t where t match '"한국어"' order by rowid)), '') = '401';
select 'korean_particle_t3', coalesce((select group_concat(rowid) from (select rowid from t3 where t3 match '"한국어"' order by rowid)), '') = '401';
select 'latin_next_to_hangul', coalesce((select group_concat(rowid) from (select rowid from t where t match '"id"' order by rowid)), '') = '402,403';
select 'latin_next_to_hangul_t3', coalesce((select group_concat(rowid) from (select rowid from t3 where t3 match '"id"' order by rowid)), '') = '402,403';
select 'latin_next_to_katakana', coalesce((select group_concat(rowid) from (select rowid from t where t match '"ID"' order by rowid)), '') = '402,403';
select 'latin_next_to_katakana_t3', coalesce((select group_concat(rowid) from (select rowid from t3 where t3 match '"ID"' order by rowid)), '') = '402,403';
select 'katakana_before_latin', coalesce((select group_concat(rowid) from (select rowid from t where t match '"ユーザ"' order by rowid)), '') = '403';
select 'katakana_before_latin_t3', coalesce((select group_concat(rowid) from (select rowid from t3 where t3 match '"ユーザ"' order by rowid)), '') = '403';
select 'hangul_after_latin', coalesce((select group_concat(rowid) from (select rowid from t where t match '"를"' order by rowid)), '') = '401,402';
select 'hangul_after_latin_t3', coalesce((select group_concat(rowid) from (select rowid from t3 where t3 match '"를"' order by rowid)), '') = '401,402';
select 'soft_hyphen_zwj_zwsp', coalesce((select group_concat(rowid) from (select rowid from t where t match '"information"' order by rowid)), '') = '404,405,407';
select 'soft_hyphen_zwj_zwsp_t3', coalesce((select group_concat(rowid) from (select rowid from t3 where t3 match '"information"' order by rowid)), '') = '404,405,407';
select 'zwnj_persian', coalesce((select group_concat(rowid) from (select rowid from t where t match '"میخواهم"' order by rowid)), '') = '406';
select 'zwnj_persian_t3', coalesce((select group_concat(rowid) from (select rowid from t3 where t3 match '"میخواهم"' order by rowid)), '') = '406';
select 'zwnj_persian_part', coalesce((select group_concat(rowid) from (select rowid from t where t match '"می"' order by rowid)), '') = '406';
select 'zwnj_persian_part_t3', coalesce((select group_concat(rowid) from (select rowid from t3 where t3 match '"می"' order by rowid)), '') = '406';
select 'zwnj_persian_first_part', coalesce((select group_concat(rowid) from (select rowid from t where t match '"پیش"' order by rowid)), '') = '408';
select 'zwnj_persian_first_part_t3', coalesce((select group_concat(rowid) from (select rowid from t3 where t3 match '"پیش"' order by rowid)), '') = '408';
select 'zwnj_persian_last_part', coalesce((select group_concat(rowid) from (select rowid from t where t match '"فرض"' order by rowid)), '') = '408';
select 'zwnj_persian_last_part_t3', coalesce((select group_concat(rowid) from (select rowid from t3 where t3 match '"فرض"' order by rowid)), '') = '408';
select 'zwnj_persian_whole', coalesce((select group_concat(rowid) from (select rowid from t where t match '"پیشفرض"' order by rowid)), '') = '408';
select 'zwnj_persian_whole_t3', coalesce((select group_concat(rowid) from (select rowid from t3 where t3 match '"پیشفرض"' order by rowid)), '') = '408';
select 'zwnj_persian_whole_query', coalesce((select group_concat(rowid) from (select rowid from t where t match '"پیش' || char(8204) || 'فرض"' order by rowid)), '') = '408';
select 'zwnj_persian_whole_query_t3', coalesce((select group_concat(rowid) from (select rowid from t3 where t3 match '"پیش' || char(8204) || 'فرض"' order by rowid)), '') = '408';

-- 5. Identifiers, file names, domains, versions, numbers, apostrophes: whole and by parts
select 'snake_case_whole', coalesce((select group_concat(rowid) from (select rowid from t where t match '"parse_session_key"' order by rowid)), '') = '501,502';
select 'snake_case_whole_t3', coalesce((select group_concat(rowid) from (select rowid from t3 where t3 match '"parse_session_key"' order by rowid)), '') = '501,502';
select 'snake_case_part', coalesce((select group_concat(rowid) from (select rowid from t where t match '"session"' order by rowid)), '') = '501,502';
select 'snake_case_part_t3', coalesce((select group_concat(rowid) from (select rowid from t3 where t3 match '"session"' order by rowid)), '') = '501,502';
select 'camel_case_whole', coalesce((select group_concat(rowid) from (select rowid from t where t match '"parseSessionKey"' order by rowid)), '') = '501,502';
select 'camel_case_whole_t3', coalesce((select group_concat(rowid) from (select rowid from t3 where t3 match '"parseSessionKey"' order by rowid)), '') = '501,502';
select 'camel_case_lower_case_query', coalesce((select group_concat(rowid) from (select rowid from t where t match '"parsesessionkey"' order by rowid)), '') = '501,502';
select 'camel_case_lower_case_query_t3', coalesce((select group_concat(rowid) from (select rowid from t3 where t3 match '"parsesessionkey"' order by rowid)), '') = '501,502';
select 'camel_case_inner_parts', coalesce((select group_concat(rowid) from (select rowid from t where t match '"sessionKey"' order by rowid)), '') = '501,502';
select 'camel_case_inner_parts_t3', coalesce((select group_concat(rowid) from (select rowid from t3 where t3 match '"sessionKey"' order by rowid)), '') = '501,502';
select 'acronym_camel_part', coalesce((select group_concat(rowid) from (select rowid from t where t match '"server"' order by rowid)), '') = '503';
select 'acronym_camel_part_t3', coalesce((select group_concat(rowid) from (select rowid from t3 where t3 match '"server"' order by rowid)), '') = '503';
select 'acronym_camel_whole', coalesce((select group_concat(rowid) from (select rowid from t where t match '"httpserver"' order by rowid)), '') = '503';
select 'acronym_camel_whole_t3', coalesce((select group_concat(rowid) from (select rowid from t3 where t3 match '"httpserver"' order by rowid)), '') = '503';
select 'camel_case_inner_run', coalesce((select group_concat(rowid) from (select rowid from t where t match '"httpResponse"' order by rowid)), '') = '514';
select 'camel_case_inner_run_t3', coalesce((select group_concat(rowid) from (select rowid from t3 where t3 match '"httpResponse"' order by rowid)), '') = '514';
select 'snake_case_camel_query', coalesce((select group_concat(rowid) from (select rowid from t where t match '"parse_sessionKey"' order by rowid)), '') = '501,502';
select 'snake_case_camel_query_t3', coalesce((select group_concat(rowid) from (select rowid from t3 where t3 match '"parse_sessionKey"' order by rowid)), '') = '501,502';
select 'acronym_plural_whole', coalesce((select group_concat(rowid) from (select rowid from t where t match '"urls"' order by rowid)), '') = '513';
select 'acronym_plural_whole_t3', coalesce((select group_concat(rowid) from (select rowid from t3 where t3 match '"urls"' order by rowid)), '') = '513';
select 'acronym_plural_not_cut', coalesce((select group_concat(rowid) from (select rowid from t where t match '"ls"' order by rowid)), '') = '';
select 'acronym_plural_not_cut_t3', coalesce((select group_concat(rowid) from (select rowid from t3 where t3 match '"ls"' order by rowid)), '') = '';
select 'acronym_plural_ids', coalesce((select group_concat(rowid) from (select rowid from t where t match '"ids"' order by rowid)), '') = '513';
select 'acronym_plural_not_cut_ds', coalesce((select group_concat(rowid) from (select rowid from t where t match '"ds"' order by rowid)), '') = '';
select 'file_name', coalesce((select group_concat(rowid) from (select rowid from t where t match '"report.txt"' order by rowid)), '') = '504';
select 'file_name_t3', coalesce((select group_concat(rowid) from (select rowid from t3 where t3 match '"report.txt"' order by rowid)), '') = '504';
select 'file_name_part', coalesce((select group_concat(rowid) from (select rowid from t where t match '"txt"' order by rowid)), '') = '504';
select 'file_name_part_t3', coalesce((select group_concat(rowid) from (select rowid from t3 where t3 match '"txt"' order by rowid)), '') = '504';
select 'domain', coalesce((select group_concat(rowid) from (select rowid from t where t match '"example.com"' order by rowid)), '') = '505,510,511';
select 'domain_t3', coalesce((select group_concat(rowid) from (select rowid from t3 where t3 match '"example.com"' order by rowid)), '') = '505,510,511';
select 'subdomain', coalesce((select group_concat(rowid) from (select rowid from t where t match '"www.example.com"' order by rowid)), '') = '505';
select 'subdomain_t3', coalesce((select group_concat(rowid) from (select rowid from t3 where t3 match '"www.example.com"' order by rowid)), '') = '505';
select 'version', coalesce((select group_concat(rowid) from (select rowid from t where t match '"v1.2.3"' order by rowid)), '') = '506';
select 'version_t3', coalesce((select group_concat(rowid) from (select rowid from t3 where t3 match '"v1.2.3"' order by rowid)), '') = '506';
select 'version_part', coalesce((select group_concat(rowid) from (select rowid from t where t match '"v1"' order by rowid)), '') = '506,510';
select 'version_part_t3', coalesce((select group_concat(rowid) from (select rowid from t3 where t3 match '"v1"' order by rowid)), '') = '506,510';
select 'number_with_separators', coalesce((select group_concat(rowid) from (select rowid from t where t match '"1,234.56"' order by rowid)), '') = '507';
select 'number_with_separators_t3', coalesce((select group_concat(rowid) from (select rowid from t3 where t3 match '"1,234.56"' order by rowid)), '') = '507';
select 'number_part', coalesce((select group_concat(rowid) from (select rowid from t where t match '"234"' order by rowid)), '') = '507';
select 'number_part_t3', coalesce((select group_concat(rowid) from (select rowid from t3 where t3 match '"234"' order by rowid)), '') = '507';
select 'apostrophe', coalesce((select group_concat(rowid) from (select rowid from t where t match '"can''t"' order by rowid)), '') = '508,509';
select 'apostrophe_t3', coalesce((select group_concat(rowid) from (select rowid from t3 where t3 match '"can''t"' order by rowid)), '') = '508,509';
select 'curly_apostrophe_query', coalesce((select group_concat(rowid) from (select rowid from t where t match '"can’t"' order by rowid)), '') = '508,509';
select 'curly_apostrophe_query_t3', coalesce((select group_concat(rowid) from (select rowid from t3 where t3 match '"can’t"' order by rowid)), '') = '508,509';
select 'apostrophe_part', coalesce((select group_concat(rowid) from (select rowid from t where t match '"can"' order by rowid)), '') = '508,509';
select 'apostrophe_part_t3', coalesce((select group_concat(rowid) from (select rowid from t3 where t3 match '"can"' order by rowid)), '') = '508,509';
select 'url_host', coalesce((select group_concat(rowid) from (select rowid from t where t match '"api.example.com"' order by rowid)), '') = '510';
select 'url_host_t3', coalesce((select group_concat(rowid) from (select rowid from t3 where t3 match '"api.example.com"' order by rowid)), '') = '510';
select 'url_query_parameter', coalesce((select group_concat(rowid) from (select rowid from t where t match '"limit=10"' order by rowid)), '') = '510';
select 'url_query_parameter_t3', coalesce((select group_concat(rowid) from (select rowid from t3 where t3 match '"limit=10"' order by rowid)), '') = '510';
select 'email_local_part', coalesce((select group_concat(rowid) from (select rowid from t where t match '"ops"' order by rowid)), '') = '511';
select 'email_local_part_t3', coalesce((select group_concat(rowid) from (select rowid from t3 where t3 match '"ops"' order by rowid)), '') = '511';
select 'operator_is_a_word', coalesce((select group_concat(rowid) from (select rowid from t where t match '"not"' order by rowid)), '') = '512';
select 'operator_is_a_word_t3', coalesce((select group_concat(rowid) from (select rowid from t3 where t3 match '"not"' order by rowid)), '') = '512';

-- 6. Han, kana, Hangul, Thai, Lao, Khmer, Myanmar: substrings of any length, never across punctuation or space
select 'han_one_char', coalesce((select group_concat(rowid) from (select rowid from t where t match '"庁"' order by rowid)), '') = '601';
select 'han_one_char_t3', coalesce((select group_concat(rowid) from (select rowid from t3 where t3 match '"庁"' order by rowid)), '') = '601';
select 'han_one_char_everywhere', coalesce((select group_concat(rowid) from (select rowid from t where t match '"東"' order by rowid)), '') = '601,602,603,604,610,804';
select 'han_one_char_everywhere_t3', coalesce((select group_concat(rowid) from (select rowid from t3 where t3 match '"東"' order by rowid)), '') = '601,602,603,604,610,804';
select 'han_two_chars', coalesce((select group_concat(rowid) from (select rowid from t where t match '"東京"' order by rowid)), '') = '601,604,610';
select 'han_two_chars_t3', coalesce((select group_concat(rowid) from (select rowid from t3 where t3 match '"東京"' order by rowid)), '') = '601,604,610';
select 'han_three_chars', coalesce((select group_concat(rowid) from (select rowid from t where t match '"東京都"' order by rowid)), '') = '601,610';
select 'han_three_chars_t3', coalesce((select group_concat(rowid) from (select rowid from t3 where t3 match '"東京都"' order by rowid)), '') = '601,610';
select 'han_four_chars', coalesce((select group_concat(rowid) from (select rowid from t where t match '"東京都庁"' order by rowid)), '') = '601';
select 'han_four_chars_t3', coalesce((select group_concat(rowid) from (select rowid from t3 where t3 match '"東京都庁"' order by rowid)), '') = '601';
select 'han_inner_substring', coalesce((select group_concat(rowid) from (select rowid from t where t match '"京都"' order by rowid)), '') = '601,610';
select 'han_inner_substring_t3', coalesce((select group_concat(rowid) from (select rowid from t3 where t3 match '"京都"' order by rowid)), '') = '601,610';
select 'han_not_across_punctuation_or_space', coalesce((select group_concat(rowid) from (select rowid from t where t match '"東京"' and rowid in (602, 603) order by rowid)), '') = '';
select 'han_not_across_punctuation_or_space_t3', coalesce((select group_concat(rowid) from (select rowid from t3 where t3 match '"東京"' and rowid in (602, 603) order by rowid)), '') = '';
select 'han_five_chars_across_kana', coalesce((select group_concat(rowid) from (select rowid from t where t match '"都庁の近く"' order by rowid)), '') = '601';
select 'han_five_chars_across_kana_t3', coalesce((select group_concat(rowid) from (select rowid from t3 where t3 match '"都庁の近く"' order by rowid)), '') = '601';
select 'han_missing', coalesce((select group_concat(rowid) from (select rowid from t where t match '"大京"' order by rowid)), '') = '';
select 'han_missing_t3', coalesce((select group_concat(rowid) from (select rowid from t3 where t3 match '"大京"' order by rowid)), '') = '';
select 'han_other_document', coalesce((select group_concat(rowid) from (select rowid from t where t match '"大阪"' order by rowid)), '') = '611';
select 'han_other_document_t3', coalesce((select group_concat(rowid) from (select rowid from t3 where t3 match '"大阪"' order by rowid)), '') = '611';
select 'punctuation_in_query_too', coalesce((select group_concat(rowid) from (select rowid from t where t match '"東、京"' order by rowid)), '') = '602,603';
select 'punctuation_in_query_too_t3', coalesce((select group_concat(rowid) from (select rowid from t3 where t3 match '"東、京"' order by rowid)), '') = '602,603';
select 'kana_one_char', coalesce((select group_concat(rowid) from (select rowid from t where t match '"の"' order by rowid)), '') = '601,605';
select 'kana_one_char_t3', coalesce((select group_concat(rowid) from (select rowid from t3 where t3 match '"の"' order by rowid)), '') = '601,605';
select 'japanese_mixed_run', coalesce((select group_concat(rowid) from (select rowid from t where t match '"語のテ"' order by rowid)), '') = '605';
select 'japanese_mixed_run_t3', coalesce((select group_concat(rowid) from (select rowid from t3 where t3 match '"語のテ"' order by rowid)), '') = '605';
select 'katakana_word', coalesce((select group_concat(rowid) from (select rowid from t where t match '"テキスト"' order by rowid)), '') = '605';
select 'katakana_word_t3', coalesce((select group_concat(rowid) from (select rowid from t3 where t3 match '"テキスト"' order by rowid)), '') = '605';
select 'hangul_inner', coalesce((select group_concat(rowid) from (select rowid from t where t match '"한민"' order by rowid)), '') = '606';
select 'hangul_inner_t3', coalesce((select group_concat(rowid) from (select rowid from t3 where t3 match '"한민"' order by rowid)), '') = '606';
select 'hangul_one_char', coalesce((select group_concat(rowid) from (select rowid from t where t match '"한"' order by rowid)), '') = '401,606';
select 'hangul_one_char_t3', coalesce((select group_concat(rowid) from (select rowid from t3 where t3 match '"한"' order by rowid)), '') = '401,606';
select 'hangul_whole', coalesce((select group_concat(rowid) from (select rowid from t where t match '"대한민국"' order by rowid)), '') = '606';
select 'hangul_whole_t3', coalesce((select group_concat(rowid) from (select rowid from t3 where t3 match '"대한민국"' order by rowid)), '') = '606';
select 'thai_one_char', coalesce((select group_concat(rowid) from (select rowid from t where t match '"ภ"' order by rowid)), '') = '326';
select 'thai_one_char_t3', coalesce((select group_concat(rowid) from (select rowid from t3 where t3 match '"ภ"' order by rowid)), '') = '326';
select 'thai_inner', coalesce((select group_concat(rowid) from (select rowid from t where t match '"ไทย"' order by rowid)), '') = '326';
select 'thai_inner_t3', coalesce((select group_concat(rowid) from (select rowid from t3 where t3 match '"ไทย"' order by rowid)), '') = '326';
select 'thai_long', coalesce((select group_concat(rowid) from (select rowid from t where t match '"ไทยง่ายนิด"' order by rowid)), '') = '326';
select 'thai_long_t3', coalesce((select group_concat(rowid) from (select rowid from t3 where t3 match '"ไทยง่ายนิด"' order by rowid)), '') = '326';
select 'lao', coalesce((select group_concat(rowid) from (select rowid from t where t match '"ລາວ"' order by rowid)), '') = '607';
select 'lao_t3', coalesce((select group_concat(rowid) from (select rowid from t3 where t3 match '"ລາວ"' order by rowid)), '') = '607';
select 'lao_two_chars', coalesce((select group_concat(rowid) from (select rowid from t where t match '"ພາ"' order by rowid)), '') = '607';
select 'lao_two_chars_t3', coalesce((select group_concat(rowid) from (select rowid from t3 where t3 match '"ພາ"' order by rowid)), '') = '607';
select 'khmer', coalesce((select group_concat(rowid) from (select rowid from t where t match '"ខ្មែរ"' order by rowid)), '') = '608';
select 'khmer_t3', coalesce((select group_concat(rowid) from (select rowid from t3 where t3 match '"ខ្មែរ"' order by rowid)), '') = '608';
select 'myanmar', coalesce((select group_concat(rowid) from (select rowid from t where t match '"ဘာသာ"' order by rowid)), '') = '609';
select 'myanmar_t3', coalesce((select group_concat(rowid) from (select rowid from t3 where t3 match '"ဘာသာ"' order by rowid)), '') = '609';

-- 7. Prefix queries, phrases and NEAR
select 'prefix_word', coalesce((select group_concat(rowid) from (select rowid from t where t match '"fold"*' order by rowid)), '') = '701';
select 'prefix_word_t3', coalesce((select group_concat(rowid) from (select rowid from t3 where t3 match '"fold"*' order by rowid)), '') = '701';
select 'prefix_bareword', coalesce((select group_concat(rowid) from (select rowid from t where t match 'fold*' order by rowid)), '') = '701';
select 'prefix_bareword_t3', coalesce((select group_concat(rowid) from (select rowid from t3 where t3 match 'fold*' order by rowid)), '') = '701';
select 'prefix_folded', coalesce((select group_concat(rowid) from (select rowid from t where t match '"STRA"*' order by rowid)), '') = '201,202';
select 'prefix_folded_t3', coalesce((select group_concat(rowid) from (select rowid from t3 where t3 match '"STRA"*' order by rowid)), '') = '201,202';
select 'prefix_camel_case', coalesce((select group_concat(rowid) from (select rowid from t where t match '"parseSess"*' order by rowid)), '') = '501,502';
select 'prefix_camel_case_t3', coalesce((select group_concat(rowid) from (select rowid from t3 where t3 match '"parseSess"*' order by rowid)), '') = '501,502';
select 'prefix_snake_case', coalesce((select group_concat(rowid) from (select rowid from t where t match '"parse_sess"*' order by rowid)), '') = '501,502';
select 'prefix_snake_case_t3', coalesce((select group_concat(rowid) from (select rowid from t3 where t3 match '"parse_sess"*' order by rowid)), '') = '501,502';
select 'prefix_han', coalesce((select group_concat(rowid) from (select rowid from t where t match '"東京"*' order by rowid)), '') = '601,604,610';
select 'prefix_han_t3', coalesce((select group_concat(rowid) from (select rowid from t3 where t3 match '"東京"*' order by rowid)), '') = '601,604,610';
select 'prefix_han_three', coalesce((select group_concat(rowid) from (select rowid from t where t match '"京都庁"*' order by rowid)), '') = '601';
select 'prefix_han_three_t3', coalesce((select group_concat(rowid) from (select rowid from t3 where t3 match '"京都庁"*' order by rowid)), '') = '601';
select 'prefix_han_one', coalesce((select group_concat(rowid) from (select rowid from t where t match '"庁"*' order by rowid)), '') = '601';
select 'prefix_han_one_t3', coalesce((select group_concat(rowid) from (select rowid from t3 where t3 match '"庁"*' order by rowid)), '') = '601';
select 'prefix_han_not_contiguous', coalesce((select group_concat(rowid) from (select rowid from t where t match '"京庁"*' order by rowid)), '') = '';
select 'prefix_han_not_contiguous_t3', coalesce((select group_concat(rowid) from (select rowid from t3 where t3 match '"京庁"*' order by rowid)), '') = '';
select 'phrase', coalesce((select group_concat(rowid) from (select rowid from t where t match '"quick brown"' order by rowid)), '') = '702';
select 'phrase_t3', coalesce((select group_concat(rowid) from (select rowid from t3 where t3 match '"quick brown"' order by rowid)), '') = '702';
select 'phrase_order', coalesce((select group_concat(rowid) from (select rowid from t where t match '"brown quick"' order by rowid)), '') = '';
select 'phrase_order_t3', coalesce((select group_concat(rowid) from (select rowid from t3 where t3 match '"brown quick"' order by rowid)), '') = '';
select 'and_terms', coalesce((select group_concat(rowid) from (select rowid from t where t match 'quick AND fox' order by rowid)), '') = '702,703';
select 'and_terms_t3', coalesce((select group_concat(rowid) from (select rowid from t3 where t3 match 'quick AND fox' order by rowid)), '') = '702,703';
select 'near', coalesce((select group_concat(rowid) from (select rowid from t where t match 'NEAR(quick fox, 1)' order by rowid)), '') = '702,703';
select 'near_t3', coalesce((select group_concat(rowid) from (select rowid from t3 where t3 match 'NEAR(quick fox, 1)' order by rowid)), '') = '702,703';
select 'near_too_far', coalesce((select group_concat(rowid) from (select rowid from t where t match 'NEAR(quick jumps, 1)' order by rowid)), '') = '';
select 'near_too_far_t3', coalesce((select group_concat(rowid) from (select rowid from t3 where t3 match 'NEAR(quick jumps, 1)' order by rowid)), '') = '';
select 'near_far_enough', coalesce((select group_concat(rowid) from (select rowid from t where t match 'NEAR(quick jumps, 2)' order by rowid)), '') = '702';
select 'near_far_enough_t3', coalesce((select group_concat(rowid) from (select rowid from t3 where t3 match 'NEAR(quick jumps, 2)' order by rowid)), '') = '702';
select 'near_han_positions', coalesce((select group_concat(rowid) from (select rowid from t where t match 'NEAR("東京" "近く", 3)' order by rowid)), '') = '601';
select 'near_han_positions_t3', coalesce((select group_concat(rowid) from (select rowid from t3 where t3 match 'NEAR("東京" "近く", 3)' order by rowid)), '') = '601';
select 'near_han_too_far', coalesce((select group_concat(rowid) from (select rowid from t where t match 'NEAR("東京" "近く", 2)' order by rowid)), '') = '';
select 'near_han_too_far_t3', coalesce((select group_concat(rowid) from (select rowid from t3 where t3 match 'NEAR("東京" "近く", 2)' order by rowid)), '') = '';

-- 8. Any bytes: invalid UTF-8 and NUL insert fine (the 16 MiB document is at the end)
select 'invalid_utf8_neighbour_word', coalesce((select group_concat(rowid) from (select rowid from t where t match '"bar"' order by rowid)), '') = '801';
select 'invalid_utf8_neighbour_word_t3', coalesce((select group_concat(rowid) from (select rowid from t3 where t3 match '"bar"' order by rowid)), '') = '801';
select 'after_nul', coalesce((select group_concat(rowid) from (select rowid from t where t match '"here"' order by rowid)), '') = '503,802';
select 'after_nul_t3', coalesce((select group_concat(rowid) from (select rowid from t3 where t3 match '"here"' order by rowid)), '') = '503,802';
select 'truncated_sequence_splits_han', coalesce((select group_concat(rowid) from (select rowid from t where t match '"東都"' order by rowid)), '') = '';
select 'truncated_sequence_splits_han_t3', coalesce((select group_concat(rowid) from (select rowid from t3 where t3 match '"東都"' order by rowid)), '') = '';
select 'han_before_truncated_sequence', coalesce((select group_concat(rowid) from (select rowid from t where t match '"都"' order by rowid)), '') = '601,610,804';
select 'han_before_truncated_sequence_t3', coalesce((select group_concat(rowid) from (select rowid from t3 where t3 match '"都"' order by rowid)), '') = '601,610,804';

-- 9. Emoji and symbols
select 'emoji', coalesce((select group_concat(rowid) from (select rowid from t where t match '"👍"' order by rowid)), '') = '901,902';
select 'emoji_t3', coalesce((select group_concat(rowid) from (select rowid from t3 where t3 match '"👍"' order by rowid)), '') = '901,902';
select 'emoji_skin_tone_query', coalesce((select group_concat(rowid) from (select rowid from t where t match '"👍🏽"' order by rowid)), '') = '901,902';
select 'emoji_skin_tone_query_t3', coalesce((select group_concat(rowid) from (select rowid from t3 where t3 match '"👍🏽"' order by rowid)), '') = '901,902';
select 'flag', coalesce((select group_concat(rowid) from (select rowid from t where t match '"🇫🇮"' order by rowid)), '') = '903';
select 'flag_t3', coalesce((select group_concat(rowid) from (select rowid from t3 where t3 match '"🇫🇮"' order by rowid)), '') = '903';
select 'words_around_emoji', coalesce((select group_concat(rowid) from (select rowid from t where t match '"it today"' order by rowid)), '') = '';
select 'words_around_emoji_t3', coalesce((select group_concat(rowid) from (select rowid from t3 where t3 match '"it today"' order by rowid)), '') = '';
select 'word_after_emoji', coalesce((select group_concat(rowid) from (select rowid from t where t match '"today"' order by rowid)), '') = '505,901,902';
select 'word_after_emoji_t3', coalesce((select group_concat(rowid) from (select rowid from t3 where t3 match '"today"' order by rowid)), '') = '505,901,902';

-- 10. highlight(), snippet() and sessionsearch_snippet() cut the original text at the right bytes
select 'highlight_han_one_char', (select highlight(t, 0, '[', ']') from t where t match '"京"' and rowid = 610) = '東[京]都';
select 'highlight_han_one_char_t3', (select highlight(t3, 0, '[', ']') from t3 where t3 match '"京"' and rowid = 610) = '東[京]都';
select 'highlight_han_one_char_in_run', (select highlight(t, 0, '[', ']') from t where t match '"京"' and rowid = 601) = '我住在東[京]都庁の近く';
select 'highlight_han_two_chars', (select highlight(t, 0, '[', ']') from t where t match '"京都"' and rowid = 601) = '我住在東[京都]庁の近く';
select 'highlight_han_four_chars', (select highlight(t, 0, '[', ']') from t where t match '"京都庁の"' and rowid = 601) = '我住在東[京都庁の]近く';
select 'highlight_han_four_chars_t3', (select highlight(t3, 0, '[', ']') from t3 where t3 match '"京都庁の"' and rowid = 601) = '我住在東[京都庁の]近く';
select 'highlight_thai', (select highlight(t, 0, '[', ']') from t where t match '"ง่าย"' and rowid = 326) = 'ภาษาไทย[ง่าย]นิดเดียว';
select 'highlight_thai_t3', (select highlight(t3, 0, '[', ']') from t3 where t3 match '"ง่าย"' and rowid = 326) = 'ภาษาไทย[ง่าย]นิดเดียว';
select 'highlight_sharp_s', (select highlight(t, 0, '[', ']') from t where t match '"strasse"' and rowid = 201) = 'Die [Straße] ist lang';
select 'highlight_greek', (select highlight(t3, 0, '[', ']') from t3 where t3 match '"οδυσσευς"' and rowid = 204) = '[Οδυσσεύς] returns';
select 'highlight_nfd_inside_word', (select highlight(t, 0, '[', ']') from t where t match '"tieng"' and rowid = 303) = '[Tie' || char(770, 769) || 'ng]';
select 'highlight_full_width', (select highlight(t, 0, '[', ']') from t where t match '"abc123"' and rowid = 103) = '[ＡＢＣ１２３] model';
select 'highlight_ligature', (select highlight(t, 0, '[', ']') from t where t match '"finance"' and rowid = 105) = '[ﬁnance] report';
select 'highlight_tatweel', (select highlight(t, 0, '[', ']') from t where t match '"عربي"' and rowid = 317) = '[عـــربي]';
select 'highlight_camel_case_part', (select highlight(t, 0, '[', ']') from t where t match '"session"' and rowid = 502) = 'call parse[Session]Key now';
select 'highlight_file_name', (select highlight(t, 0, '[', ']') from t where t match '"report.txt"' and rowid = 504) = 'open [report.txt] please';
select 'highlight_after_hangul_particle', (select highlight(t, 0, '[', ']') from t where t match '"id"' and rowid = 402) = '[ID]를 입력하세요';
select 'highlight_han_one_char_in_run_t3', (select highlight(t3, 0, '[', ']') from t3 where t3 match '"京"' and rowid = 601) = '我住在東[京]都庁の近く';
select 'highlight_han_two_chars_t3', (select highlight(t3, 0, '[', ']') from t3 where t3 match '"京都"' and rowid = 601) = '我住在東[京都]庁の近く';
select 'highlight_nfd_final_mark', (select highlight(t, 0, '[', ']') from t where t match '"cafe"' and rowid = 101) = '[cafe' || char(769) || '] au lait';
select 'highlight_emoji_modifier', (select highlight(t, 0, '[', ']') from t where t match '"👍"' and rowid = 902) = 'ship it [👍🏽] today';
select 'highlight_camel_case_whole', (select highlight(t, 0, '[', ']') from t where t match '"parsesessionkey"' and rowid = 502) = 'call [parseSessionKey] now';
-- A query for a run of a word's parts matches one token at the word's first
-- position, where highlight() sees the whole word (docs/tokenizer.md T13).
select 'highlight_camel_case_run', (select highlight(t, 0, '[', ']') from t where t match '"parseSession"' and rowid = 502) = 'call [parseSessionKey] now';
select 'highlight_camel_case_parts_phrase', (select highlight(t, 0, '[', ']') from t where t match '"parse session"' and rowid = 502) = 'call [parseSession]Key now';
select 'highlight_zwnj_part', (select highlight(t, 0, '[', ']') from t where t match '"فرض"' and rowid = 408) = 'پیش' || char(8204) || '[فرض]';
select 'highlight_after_invalid_utf8', (select highlight(t, 0, '[', ']') from t where t match '"bar"' and rowid = 801) = CAST(X'666F806F205B6261725D' AS TEXT);
select 'highlight_umlaut', (select highlight(t, 0, '[', ']') from t where t match '"brucke"' and rowid = 1001) = 'Der Bericht über die [Brücke] in Köln wurde gestern veröffentlicht und sofort überall gelesen.';
select 'snippet_multibyte', (select snippet(t, 0, '[', ']', '…', 4) from t where t match 'brucke') = '…die [Brücke] in Köln…';
select 'snippet_han', (select snippet(t, 0, '[', ']', '…', 4) from t where t match '"都庁"') = '…京[都庁]の…';
select 'snippet_han_t3', (select snippet(t3, 0, '[', ']', '…', 4) from t3 where t3 match '"都庁"') = '…京[都庁]の…';
select 'sessionsearch_snippet_window', (select sessionsearch_snippet(t, 30) from t where t match 'brucke') = '…über die Brücke in Köln…';
select 'sessionsearch_snippet_window_t3', (select sessionsearch_snippet(t3, 30) from t3 where t3 match 'brucke') = '…über die Brücke in Köln…';
select 'sessionsearch_snippet_at_end', (select sessionsearch_snippet(t, 30) from t where t match 'gelesen') = '…und sofort überall gelesen.';
select 'sessionsearch_snippet_short_text_whole', (select sessionsearch_snippet(t3, 30) from t3 where t3 match '"都庁"') = '我住在東京都庁の近く';

-- Tokens: what sessionsearch_tokens(text [, options [, 'document'|'query']]) returns
select 'tokens_han_offsets', sessionsearch_tokens('東京') = '[{"token":"東","start":0,"end":3},{"token":"京","start":3,"end":6}]';
select 'tokens_trigram_document', sessionsearch_tokens('東京都', 'cjk trigram') = '[{"token":"東","start":0,"end":3},{"token":"東京都","start":0,"end":9,"colocated":true},{"token":"京","start":3,"end":6},{"token":"都","start":6,"end":9}]';
select 'tokens_trigram_query', sessionsearch_tokens('東京都庁', 'cjk trigram', 'query') = '[{"token":"東京都","start":0,"end":9},{"token":"京都庁","start":3,"end":12},{"token":"都","start":6,"end":9},{"token":"庁","start":9,"end":12}]';
select 'tokens_unigram_query', sessionsearch_tokens('東京都庁', 'cjk unigram', 'query') = sessionsearch_tokens('東京都庁');
select 'tokens_options_any_case', sessionsearch_tokens('東京都', 'CJK Trigram') = sessionsearch_tokens('東京都', 'cjk trigram');
select 'tokens_camel_case_document', sessionsearch_tokens('parseSessionKey') = '[{"token":"parsesessionkey","start":0,"end":15},{"token":"parse","start":0,"end":5,"colocated":true},{"token":"parsesession","start":0,"end":12,"colocated":true},{"token":"session","start":5,"end":12},{"token":"sessionkey","start":5,"end":15,"colocated":true},{"token":"key","start":12,"end":15}]';
select 'tokens_snake_case_document', sessionsearch_tokens('parse_session_key') = '[{"token":"parsesessionkey","start":0,"end":17},{"token":"parse","start":0,"end":5,"colocated":true},{"token":"parsesession","start":0,"end":13,"colocated":true},{"token":"session","start":6,"end":13},{"token":"sessionkey","start":6,"end":17,"colocated":true},{"token":"key","start":14,"end":17}]';
select 'tokens_camel_case_query', sessionsearch_tokens('parseSessionKey', NULL, 'query') = '[{"token":"parsesessionkey","start":0,"end":15}]';
select 'tokens_sharp_s_offsets', sessionsearch_tokens('Straße') = '[{"token":"strasse","start":0,"end":7}]';
select 'tokens_final_sigma', json_extract(sessionsearch_tokens('ΟΔΥΣΣΕΥΣ'), '$[0].token') = json_extract(sessionsearch_tokens('οδυσσευς'), '$[0].token');
select 'tokens_parts', (select group_concat(json_extract(value, '$.token'), ' ') from json_each(sessionsearch_tokens('v1.2.3 1,234.56 can''t report.txt'))) = 'v1 2 3 1 234 56 can t report txt';
select 'tokens_separator_between_runs', json_array_length(sessionsearch_tokens('東、京')) = 3 and json_array_length(sessionsearch_tokens('東京')) = 2;
select 'tokens_invalid_utf8', sessionsearch_tokens(CAST(X'666F806F20626172' AS TEXT)) = '[{"token":"fo","start":0,"end":2},{"token":"o","start":3,"end":4},{"token":"bar","start":5,"end":8}]';
select 'tokens_nul', (select group_concat(json_extract(value, '$.token'), ' ') from json_each(sessionsearch_tokens(CAST(X'6E756C00627974652068657265' AS TEXT)))) = 'nul byte here';
select 'tokens_empty', sessionsearch_tokens('') = '[]' and sessionsearch_tokens('!!! ...') = '[]';
select 'tokens_null', sessionsearch_tokens(NULL) IS NULL;
select 'tokens_json_valid_for_every_document', (select min(json_valid(sessionsearch_tokens(body))) from t) = 1;
select 'tokens_offsets_inside_every_document', (select count(*) from t, json_each(sessionsearch_tokens(t.body)) j where json_extract(j.value, '$.start') < 0 or json_extract(j.value, '$.end') > length(cast(t.body as blob)) or json_extract(j.value, '$.start') >= json_extract(j.value, '$.end')) = 0;
select 'tokens_offsets_inside_every_document_trigram', (select count(*) from t, json_each(sessionsearch_tokens(t.body, 'cjk trigram')) j where json_extract(j.value, '$.start') < 0 or json_extract(j.value, '$.end') > length(cast(t.body as blob)) or json_extract(j.value, '$.start') >= json_extract(j.value, '$.end')) = 0;
select 'tokens_none_only_for_invalid_bytes', (select group_concat(rowid) from (select rowid from t where json_array_length(sessionsearch_tokens(body)) = 0 order by rowid)) = '803,805';
create virtual table tu using fts5(body, tokenize='sessionsearch cjk unigram');
insert into tu(rowid, body) select rowid, body from t;
select 'explicit_unigram_option_same_rows', (select group_concat(rowid) from (select rowid from tu where tu match '"京都"' order by rowid)) = '601,610';
drop table tu;

-- A 16 MiB document (16,777,228 bytes) inserts and is searchable, in both modes
create virtual table big using fts5(body, tokenize='sessionsearch');
insert into big(rowid, body) values (1, replace(hex(zeroblob(883012)), '00', 'Straße 東京 ok. '));
select 'huge_document_stored', (select length(cast(body as blob)) from big) = 16777228;
select 'huge_document_word', (select count(*) from big where big match 'strasse') = 1;
select 'huge_document_han', (select count(*) from big where big match '"京"') = 1;
select 'huge_document_phrase_across_sentence', (select count(*) from big where big match '"ok strasse 東京"') = 1;
select 'huge_document_no_false_substring', (select count(*) from big where big match '"京東"') = 0;
drop table big;
create virtual table big3 using fts5(body, tokenize='sessionsearch cjk trigram');
insert into big3(rowid, body) values (1, replace(hex(zeroblob(883012)), '00', 'Straße 東京 ok. '));
select 'huge_document_stored_t3', (select length(cast(body as blob)) from big3) = 16777228;
select 'huge_document_word_t3', (select count(*) from big3 where big3 match 'strasse') = 1;
select 'huge_document_han_t3', (select count(*) from big3 where big3 match '"京"') = 1;
select 'huge_document_phrase_across_sentence_t3', (select count(*) from big3 where big3 match '"ok strasse 東京"') = 1;
select 'huge_document_no_false_substring_t3', (select count(*) from big3 where big3 match '"京東"') = 0;
drop table big3;
