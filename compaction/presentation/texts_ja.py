"""The Japanese text of every English sentence the package prints for a learner, keyed by the English.

``compaction.presentation.language.say`` looks a text up here when the language is ``ja``; a ``{name}``
field stays as it is, in the place Japanese puts it. A key with fields also translates a text built
from values (``translated``: a check's case name such as "window 8,000"). API names, field names and
error texts stay English, in backquotes where the English has them. One entry per English text, in
the order of the modules that print them.
"""

from __future__ import annotations

TEXTS: dict[str, str] = {
    # compaction.course.checks: the check table's frame (PASS/FAIL/pass stay: tools parse them)
    "{verdict} {title}: {ok}/{total} checks passed": "{verdict} {title}: {ok}/{total} 件のチェックに合格",
    "check": "チェック",
    "detail": "詳細",
    "assertion failed": "アサーションが失敗しました",
    "not implemented yet": "まだ実装されていません",
    "raised {kind}: {error} (in {function}, {file} line {line})": (
        "{kind} が発生: {error}（{file} の {line} 行目、{function} 内）"
    ),
    "written by you": "自分で書いたコード",
    "this is the package's {found}; write your own": "これはパッケージの {found} です。自分で書いてください",
    # compaction.course.checks.*: failure details that are fixed sentences (from values: English)
    "your {name} calls the package's {found}, the function it must match; write your own": (
        "あなたの {name} は、"
        "一致させるべき相手であるパッケージの {found} を呼んでいます。自分で書いてください"
    ),
    "return a list of edits (dicts), at least one": "編集（dict）のリストを、少なくとも 1 つ返してください",
    "nothing was ever cleared": "一度もクリアされませんでした",
    "the input list was changed": "入力のリストが変更されました",
    "the nightly log: the first 1,000 characters are not in the preview": (
        "夜間ビルドのログ: 先頭の 1,000 文字がプレビューにありません"
    ),
    "the nightly log: the last 1,000 characters (the error) are not in the preview": (
        "夜間ビルドのログ: 末尾の 1,000 文字（エラー）がプレビューにありません"
    ),
    "the nightly log: the error line at the end is not shown": (
        "夜間ビルドのログ: 末尾のエラー行が表示されていません"
    ),
    "a short output: an output shorter than the preview is shown whole": (
        "短い出力: プレビューより短い出力は全体を表示します"
    ),
    "a short output: shown twice; show it once, with nothing left out": (
        "短い出力: 2 回表示されています。省略せずに 1 回だけ表示してください"
    ),
    "an output of exactly 2,000 characters is shown whole (<=, not <)": (
        "ちょうど 2,000 文字の出力は全体を表示します（< ではなく <=）"
    ),
    "2,001 characters: both 1,000-character ends": "2,001 文字: 両端の 1,000 文字ずつを残します",
    "2,001 characters: the middle character is omitted": "2,001 文字: 中央の 1 文字を省略します",
    "write at least six probes": "プローブを 6 個以上書いてください",
    "message 2, write_file: the new entries are missing": (
        "メッセージ 2、write_file: 新しいエントリーがありません"
    ),
    "the list of answers was changed; leave it as it was": (
        "応答のリストが変更されました。元のままにしてください"
    ),
    "the input list was changed; return a new list": (
        "入力のリストが変更されました。新しいリストを返してください"
    ),
    "the tail must be the end of the list": "末尾部分はリストの最後でなければなりません",
    "the tail must leave the first message to the summary": (
        "末尾部分は最初のメッセージを要約に残さなければなりません"
    ),
    "the input list was changed; restoration only reads it": (
        "入力のリストが変更されました。復元は読むだけです"
    ),
    "nothing restored, though the newest file the agent read is unchanged on disk": (
        "何も復元されていません。エージェントが最後に読んだファイルはディスク上で変わっていません"
    ),
    "nothing restored: only the deleted file should be left out": (
        "何も復元されていません: 除外するのは削除されたファイルだけです"
    ),
    "the input list was changed; build a new one": (
        "入力のリストが変更されました。新しいリストを作ってください"
    ),
    "open before any summary was tried: a new breaker is closed": (
        "要約を一度も試す前に開いています: 新しいブレーカーは閉じています"
    ),
    # compaction.course.checks: where two message lists differ
    "(the end)": "（末尾）",
    "first difference at character {at}: got {got}, expected {want}": (
        "最初の違いは {at} 文字目: 返り値 {got}、期待値 {want}"
    ),
    "`{key}` dropped": "`{key}` が抜けています",
    "`{key}` differs; {difference}": "`{key}` が違います。{difference}",
    "`{key}` changed: expected {want}, got {got}": "`{key}` が違います: 期待値 {want}、返り値 {got}",
    "`{key}` added ({value})": "`{key}` が追加されています（{value}）",
    "differs": "違いがあります",
    "expected a list of messages, got {kind}": "メッセージのリストを返してください（返り値は {kind}）",
    "{n} messages returned, expected {m}; the first difference: {fault}": (
        "返したメッセージは {n} 件、期待は {m} 件。最初の違い: {fault}"
    ),
    "message {i}: expected a dict, got {kind}": "メッセージ {i}: dict であるべきところが {kind} です",
    "message {i}: role is {got}, expected {want}": "メッセージ {i}: role が {got} です（期待値は {want}）",
    "message {i}: content differs; {difference}": "メッセージ {i}: content が違います。{difference}",
    "message {i}: content is {got}, expected {want}": (
        "メッセージ {i}: content が {got} です（期待値は {want}）"
    ),
    "message {i}, block {j} ({label})": "メッセージ {i}、ブロック {j}（{label}）",
    "{where}: expected a dict, got {kind}": "{where}: dict であるべきところが {kind} です",
    "{where}: got a {label} block instead": "{where}: 代わりに {label} ブロックがあります",
    "message {i}: an extra block at block {k} ({shown}); {n} blocks, expected {m}": (
        "メッセージ {i}: ブロック {k}（{shown}）が余分です。ブロックは {n} 個、期待は {m} 個"
    ),
    "message {i}: a block missing at block {k} ({shown}); {n} blocks, expected {m}": (
        "メッセージ {i}: ブロック {k}（{shown}）がありません。ブロックは {n} 個、期待は {m} 個"
    ),
    "{n} messages returned, expected {m}: message {k} should not be there": (
        "返したメッセージは {n} 件、期待は {m} 件: メッセージ {k} は余分です"
    ),
    "{n} messages returned, expected {m}: message {k} is missing": (
        "返したメッセージは {n} 件、期待は {m} 件: メッセージ {k} がありません"
    ),
    (
        "the result for {got} is here, expected the result for {want}: the same results in "
        "another order; give them in the order of the calls ({order})"
    ): (
        "ここにあるのは {got} の結果ですが、期待は {want} の結果です: 同じ結果が別の順序で並んでいます。"
        "呼び出しの順（{order}）に並べてください"
    ),
    "the result for {got} is here, expected the result for {want}": (
        "ここにあるのは {got} の結果ですが、期待は {want} の結果です"
    ),
    # compaction.course.checks.messages: failure details built from values
    "it held {before} messages and now holds {after}": (
        "{before} 件あったメッセージが {after} 件になっています"
    ),
    "message {i} was replaced": "メッセージ {i} が置き換えられています",
    "message {i}, block {j} ({label}): `{key}` changed": (
        "メッセージ {i}、ブロック {j}（{label}）: `{key}` が変わっています"
    ),
    "message {i}: `{key}` changed": "メッセージ {i}: `{key}` が変わっています",
    "somewhere": "どこか",
    "{where}: the input list was changed ({at}); {advice}": (
        "{where}: 入力のリストが変更されました（{at}）。{advice}"
    ),
    "build a new list instead": "代わりに新しいリストを作ってください",
    " (the list is sound)": "（このリストは正しい）",
    "list {k} of the {n} this row tries: expected {want}{why}, got {got}": (
        "この行で試す {n} 個のリストのうち {k} 番目: 期待値は {want}{why}、返り値は {got}"
    ),
    "list {k} of the {n} this row tries ({kind}: {how})": (
        "この行で試す {n} 個のリストのうち {k} 番目（{kind}: {how}）"
    ),
    "{where}: the returned list breaks {rule} at message {i}: {text}": (
        "{where}: 返したリストはメッセージ {i} で {rule} に違反しています: {text}"
    ),
    ", so the results must come before the text": "。そのため結果はテキストより前に置かなければなりません",
    "{where}: message {d} lacks the results for the calls of message {i} ({ids}); message {i} "
    "is equal to the earlier message {j}, whose calls message {j1} answers: message {i} was taken "
    "for it": (
        "{where}: メッセージ {d} に、メッセージ {i} の呼び出し（{ids}）への結果がありません。"
        "メッセージ {i} はそれより前のメッセージ {j} と同じ内容で、その呼び出しにはメッセージ {j1} が"
        "答えています。メッセージ {i} がメッセージ {j} と取り違えられました"
    ),
    "an equal message earlier": "同じメッセージが前にもある",
    # compaction.course.checks.micro: failure details built from values
    "note_for({name}): return a string, got {kind}": (
        "note_for({name}): 文字列を返してください（返り値は {kind}）"
    ),
    "note_for({name}): start with {head}: {start}": "note_for({name}): {head} で始めてください: {start}",
    "note_for({name}): one line of at most 300 characters": (
        "note_for({name}): 300 文字以内の 1 行にしてください"
    ),
    "note_for({name}): name {expected} so the model knows what to re-run": (
        "note_for({name}): モデルが何を再実行すればよいか分かるように {expected} を書いてください"
    ),
    "note for {name} names {expected}": "{name} の注記に {expected} が書かれている",
    "a 10,000-character command: one short line": "10,000 文字のコマンド: 注記は短い 1 行",
    "the last {n} assistant turn": "直近 {n} 回のアシスタントのターン",
    "the last {n} assistant turns": "直近 {n} 回のアシスタントのターン",
    "the {name} result {use_id} (message {i}) of {path}": (
        "{path} の {name} の結果 {use_id}（メッセージ {i}）"
    ),
    "the {name} result {use_id} (message {i})": "{name} の結果 {use_id}（メッセージ {i}）",
    (
        " Why: {what} should be cleared: it is exactly min_chars={min_chars} characters long, "
        "and only a result shorter than min_chars stays whole (<, not <=)."
    ): (
        " 理由: {what}はクリアされるべきです。ちょうど min_chars={min_chars} 文字の長さで、"
        "そのまま残るのは min_chars より短い結果だけです（<= ではなく <）。"
    ),
    "{path} is not edited in {turns}": "{turns}の中で {path} は編集されていません",
    "with recent_turns=0 no edit keeps a result": "recent_turns=0 ではどの編集も結果を残しません",
    "only read_file results are kept for an edit": "編集があっても残すのは read_file の結果だけです",
    " Why: {what} should be cleared: it is old, and {reason}.": (
        " 理由: {what}はクリアされるべきです。古い結果で、{reason}。"
    ),
    " Why: {what} should stay whole: an edit_file of {path} is in {turns}.": (
        " 理由: {what}はそのまま残すべきです。{turns}の中に {path} の edit_file があります。"
    ),
    " Why: {what} should stay as it is: among the newest, short, a note or a marker.": (
        " 理由: {what}は元のまま残すべきです。最新の結果、短い結果、注記、マーカーのいずれかです。"
    ),
    (
        "{turns} calls, two new results each, keep_recent={keep_recent}: predicted {got}, "
        "measured {want} cache breaks"
    ): (
        "呼び出し {turns} 回、毎回新しい結果 2 件、keep_recent={keep_recent}: "
        "予測は {got}、実測のキャッシュブレークは {want} 回"
    ),
    "build new messages instead": "代わりに新しいメッセージを作ってください",
    # compaction.course.checks.keep_used: failure details built from values
    "return a list of lines, not {kind}": "行のリストを返してください（返り値は {kind}）",
    "{line} is not a whole line of the result (lines are kept whole)": (
        "{line} は結果の 1 行まるごとではありません（行はまるごと残します）"
    ),
    "lines out of the result's order: {got}": "行が結果の中の順序になっていません: {got}",
    "lines out of the result's order: {got} ({rule})": "行が結果の中の順序になっていません: {got}（{rule}）",
    "{n} lines kept, more than max_lines={bound}": "{n} 行を残しています。max_lines={bound} を超えています",
    "{n} lines kept, more than max_lines={bound} ({rule})": (
        "{n} 行を残しています。max_lines={bound} を超えています（{rule}）"
    ),
    "line {k} ({line}) should be kept ({rule}); kept {got}": (
        "行 {k}（{line}）は残すべきです（{rule}）。残したのは {got}"
    ),
    "line {k} ({line}) should not be kept ({rule})": "行 {k}（{line}）は残すべきではありません（{rule}）",
    "{n} lines kept, expected {bound}: every line is used ({rule})": (
        "{n} 行を残していますが、期待は {bound} 行です: どの行も使われています（{rule}）"
    ),
    "line {k} ({line}) should be kept: {said} says it ({rule})": (
        "行 {k}（{line}）は残すべきです: {said} がそれに言及しています（{rule}）"
    ),
    "line {k} ({line}) should not be kept against {said} ({rule})": (
        "行 {k}（{line}）は {said} に対しては残すべきではありません（{rule}）"
    ),
    "return the ledger as text, not {kind}": "台帳をテキストで返してください（返り値は {kind}）",
    "{where}: {piece} is missing from the ledger": "{where}: 台帳に {piece} がありません",
    "message 2, bash: {wanted} is missing from the first ledger": (
        "メッセージ 2、bash: 最初の台帳に {wanted} がありません"
    ),
    (
        "message 0, the earlier ledger: {wanted} was in it but not in the new one "
        "(carry an earlier compaction's ledger over)"
    ): (
        "メッセージ 0、以前の台帳: {wanted} は以前の台帳にあったのに新しい台帳にありません"
        "（以前のコンパクションの台帳を引き継いでください）"
    ),
    "{n} lines for 121 commands: max_entries=40 should bound it": (
        "121 個のコマンドに {n} 行: max_entries=40 で行数に上限をかけてください"
    ),
    "message 2, bash: the failed run was pushed out by {n} passing commands (drop those first)": (
        "メッセージ 2、bash: 失敗した実行が、成功した {n} 個のコマンドに押し出されました"
        "（成功したものから先に削ってください）"
    ),
    "return the entry as one line of text, not {kind}": (
        "エントリーを 1 行のテキストで返してください（返り値は {kind}）"
    ),
    "the entry is one line, got {n}": "エントリーは 1 行です（返り値は {n} 行）",
    "the command {command} is missing from {got}": "{got} にコマンド {command} がありません",
    "`N {kind}` is missing from {got} (the output's last count line says {want} {kind})": (
        "{got} に `N {kind}` がありません（出力の最後の件数行は {want} {kind}）"
    ),
    "{other} {kind}, but the output's last count line says {want} {kind}": (
        "{other} {kind} となっていますが、出力の最後の件数行は {want} {kind} です"
    ),
    (
        "the right count ({want} {kind}) is there, but so is {other} {kind} from an earlier line of "
        "the output: the entry gives only the last count line's counts"
    ): (
        "正しい件数（{want} {kind}）はありますが、出力の前のほうの行にある {other} {kind} もあります: "
        "エントリーには最後の件数行の件数だけを書きます"
    ),
    "the output ends with [exit code {status}]: say `exit {status}` in {got}": (
        "出力は [exit code {status}] で終わっています: {got} に `exit {status}` と書いてください"
    ),
    # compaction.course.checks.memory: failure details built from values
    "return the answer as a string, not {kind}": "応答は文字列で返してください（返り値は {kind}）",
    "{name} is not in the folder": "{name} がフォルダーにありません",
    "view_range [2, 3] must show lines 2 and 3": (
        "view_range [2, 3] は 2 行目と 3 行目を表示しなければなりません"
    ),
    "view_range [2, 3] showed line 1": "view_range [2, 3] で 1 行目が表示されました",
    "the listing shows the real folder; show /memories paths only": (
        "一覧に実際のフォルダーが表示されています。/memories のパスだけを表示してください"
    ),
    "the file does not hold file_text": "ファイルの中身が file_text になっていません",
    "the first text was overwritten": "最初の内容が上書きされました",
    "old_str was not replaced by new_str": "old_str が new_str に置き換わっていません",
    "the file changed although the edit was refused": "編集を拒否したのにファイルが変わりました",
    "expected {want}, got {got}": "期待値 {want}、返り値 {got}",
    "the file or folder is still there": "ファイルかフォルダーがまだ残っています",
    "the notes were deleted with the root": "ルートと一緒にメモが削除されました",
    "the file was not moved": "ファイルが移動していません",
    "the destination was overwritten": "移動先が上書きされました",
    "the secret outside was changed": "フォルダーの外の秘密のファイルが変更されました",
    "a file was created outside the folder": "フォルダーの外にファイルが作られました",
    "the oversized file was written": "大きすぎるファイルが書き込まれました",
    "the note grew over the limit": "メモが上限を超えて大きくなりました",
    "the file outside the folder was changed through the hard link /memories/linked.md": (
        "ハードリンク /memories/linked.md を通してフォルダーの外のファイルが変更されました"
    ),
    "the plain note was not edited": "普通のメモが編集されていません",
    "the file outside was written through a symbolic link planted at a temporary name ({names})": (
        "一時ファイルの名前に仕掛けたシンボリックリンクを通して、外のファイルが書き換えられました（{names}）"
    ),
    "the file outside was written through a hard link planted at a temporary name ({names})": (
        "一時ファイルの名前に仕掛けたハードリンクを通して、外のファイルが書き換えられました（{names}）"
    ),
    "a file outside the folder was made": "フォルダーの外にファイルが作られました",
    "notes.md became a symbolic link to the file outside": (
        "notes.md が外のファイルへのシンボリックリンクになりました"
    ),
    "notes.md is now a second name of the file outside": "notes.md が外のファイルの 2 つ目の名前になりました",
    "{path}: refuse it or keep %2e%2e as a name ({want}); got {got}": (
        "{path}: 拒否するか、%2e%2e を名前のまま扱ってください（{want}）。返り値 {got}"
    ),
    "files left in the folder: {left}; leave no temporary file": (
        "フォルダーに残ったファイル: {left}。一時ファイルを残さないでください"
    ),
    "/memories/../config.txt was edited": "/memories/../config.txt が編集されました",
    "return a dict with old_str and new_str, the inputs of a str_replace": (
        "str_replace の入力である old_str と new_str を持つ dict を返してください"
    ),
    "old_str {old} occurs {n} times in the notes; a str_replace needs exactly one": (
        "old_str {old} はメモに {n} 回出てきます。str_replace にはちょうど 1 回が必要です"
    ),
    "old_str is {n} characters; keep it to the heading's line ({limit} at most)": (
        "old_str が {n} 文字あります。見出しの行だけにしてください（最大 {limit} 文字）"
    ),
    "after the edit: {got}; expected {want}": "編集後: {got}、期待値 {want}",
    "{path}: expected {want}, got {got}": "{path}: 期待値 {want}、返り値 {got}",
    "{command} should be refused ({why}); it answered {got}": (
        "{command} は拒否しなければなりません（{why}）。応答は {got}"
    ),
    "line {k} ({word}) is not shown with its number": "{k} 行目（{word}）が行番号付きで表示されていません",
    "the listing of /memories does not name {name}": "/memories の一覧に {name} がありません",
    "the edit was neither made in the note nor refused": "メモは編集されず、拒否もされませんでした",
    "old_str found twice must be refused": "old_str が 2 回見つかったら拒否しなければなりません",
    "the section {section}": "セクション {section}",
    "no section Progress: refuse rather than invent one; got {got}": (
        "Progress セクションはありません。作り出さずに拒否してください。返り値 {got}"
    ),
    "{path} should be refused ({rule}); got {got}": (
        "{path} は拒否しなければなりません（{rule}）。返り値 {got}"
    ),
    "refused, but the note changed": "拒否しましたが、メモが変わりました",
    "refused, but with an empty message: say which rule it breaks": (
        "拒否しましたが、メッセージが空です。どの規則に反するかを書いてください"
    ),
    "a refusal must touch nothing": "拒否するときは何も変更してはいけません",
    "{what} was refused: {error}": "{what} が拒否されました: {error}",
    "{path} is safe but was refused: {error}": "{path} は安全なのに拒否されました: {error}",
    # compaction.course.checks.memory: the rules a refusal names
    "no '..' segment": "'..' の区切りは使えない",
    "every path starts with /memories/": "パスはすべて /memories/ で始まる",
    "the root is /memories, not a prefix": "ルートは /memories であり、名前の先頭部分ではない",
    "no NUL character": "NUL 文字は使えない",
    "no control character": "制御文字は使えない",
    "no backslash (a separator on Windows)": "バックスラッシュは使えない（Windows の区切り文字）",
    "no symbolic link": "シンボリックリンクは使えない",
    "no symbolic link, at any depth": "どの深さでもシンボリックリンクは使えない",
    "no symbolic link, wherever it points": "指す先にかかわらずシンボリックリンクは使えない",
    "old_str must occur exactly once": "old_str はちょうど 1 回出てこなければならない",
    "insert_line is between 0 and the number of lines": "insert_line は 0 から行数までの間",
    "/memories itself stays": "/memories そのものは残す",
    "the destination must not exist": "移動先はまだ存在してはいけない",
    "only the six commands": "6 つのコマンドだけ",
    "at most 102,400 bytes": "最大 102,400 バイト",
    # compaction.course.checks.snip: failure details built from values
    (
        "{where}: no tail fits: the head ({head} tokens) and the newest assistant message's tail (message"
        " {best} on) already make {fits}, over max_tokens={max_tokens}; then keep the tail from the newest"
        " assistant message anyway (the current turn is never dropped); your tail starts at message {start}"
    ): (
        "{where}: どの末尾も収まりません。先頭（{head} トークン）"
        "と最新の assistant メッセージからの末尾（メッセージ"
        " {best} 以降）だけで {fits} になり、max_tokens={max_tokens} を超えます。その場合でも最新の assistant"
        " メッセージからの末尾は残します（現在のターンは決して捨てません）。"
        "あなたの末尾はメッセージ {start} から始まっています"
    ),
    "{where}: the result breaks {rule} at message {i}": (
        "{where}: 結果はメッセージ {i} で {rule} に違反しています"
    ),
    "{where}: {n} messages kept, more than max_messages": (
        "{where}: {n} 件のメッセージを残しています。max_messages を超えています"
    ),
    (
        "{where}: your tail starts at message {start}; the head ({head} tokens) and that "
        "tail make {used}, over max_tokens={max_tokens}: head and tail together must fit; the "
        "earliest start that fits is message {best}"
    ): (
        "{where}: 末尾部分がメッセージ {start} から始まっています。"
        "先頭部分（{head} トークン）とその末尾部分で {used} になり、max_tokens={max_tokens} を超えます: "
        "先頭部分と末尾部分を合わせて収めなければなりません。"
        "収まる最も早い開始位置はメッセージ {best} です"
    ),
    (
        "{where}: your tail starts at message {start}, but the tail from message {best} fits too "
        "(head and tail {fits} <= {max_tokens}{exact}): take the earliest assistant message whose tail fits"
    ): (
        "{where}: 末尾部分がメッセージ {start} から始まっていますが、"
        "メッセージ {best} からの末尾部分も収まります（先頭部分と末尾部分で {fits} <= {max_tokens}{exact}）: "
        "末尾部分が収まる最も早いアシスタントのメッセージから始めてください"
    ),
    ", exactly the budget: an exact fit is kept": "、ちょうど予算どおり: ちょうど収まるものは残します",
    "{where}: message {i}, the placeholder": "{where}: メッセージ {i}（プレースホルダー）",
    "message {i} was kept": "メッセージ {i} は残っています",
    "no request was dropped": "削除された依頼はありません",
    "{at} quotes a request, but {kept}: the request was kept, so don't quote it again": (
        "{at} が依頼を引用していますが、{kept}: 依頼は残っているので、もう一度引用しないでください"
    ),
    (
        "{at} does not quote the request of message {newest}, which was dropped (messages "
        "{first}-{last} went): quote the newest request when it goes"
    ): (
        "{at} がメッセージ {newest} の依頼を引用していませんが、その依頼は削除されました（メッセージ "
        "{first}-{last} が削除）: 最新の依頼が削除されるときはそれを引用してください"
    ),
    "the request of message {i}": "メッセージ {i} の依頼",
    "{at} quotes {which}; quote the newest request, message {newest}": (
        "{at} が {which} を引用しています。最新の依頼であるメッセージ {newest} を引用してください"
    ),
    # compaction.course.checks.budget: failure details built from values
    (
        "{what}: the marker says its preview is the first {claim} characters, but it shows the first and"
        " the last {half}: say what the preview holds (persisted_marker's label describes a preview of the"
        " head only)"
    ): (
        "{what}: マーカーはプレビューを最初の {claim} 文字と書いていますが、"
        "見せているのは最初と最後の {half} 文字です。プレビューの中身を正しく書いてください"
        "（persisted_marker のラベルは先頭だけのプレビュー用です）"
    ),
    (
        "{what}: the whole output ({n} characters) is in the marker; with preview_chars={preview} half is"
        " {half}, and output[-{half}:] is the whole output, not its last {half} characters"
        " (output[len(output) - half:] is)"
    ): (
        "{what}: 出力全体（{n} 文字）がマーカーに入っています。"
        "preview_chars={preview} では half が {half} になり、"
        "output[-{half}:] は最後の {half} 文字ではなく出力全体です（output[len(output) - half:] なら正しい）"
    ),
    "preview_chars=1, the nightly log: half is 0, so the preview shows nothing of either end": (
        "preview_chars=1、夜間ログ: half が 0 なので、プレビューにはどちらの端も入りません"
    ),
    "{where}: message {i}, block {j} ({use_id}): a result of {size} chars": (
        "{where}: メッセージ {i}、ブロック {j}（{use_id}）: {size} 文字の結果"
    ),
    "{at} became a marker of {marker}: the marker would be larger than the result: keep it": (
        "{at}が {marker} 文字のマーカーになりました: マーカーのほうが結果より大きくなります。"
        "結果をそのまま残してください"
    ),
    (
        "{at} went to disk, but its marker can take up to {most} (a {preview}-character preview "
        "and its frame): the marker would be no smaller: keep it"
    ): (
        "{at}がディスクに移されましたが、そのマーカーは最大 {most} 文字（{preview} 文字のプレビューとその枠）"
        "になり得ます: マーカーのほうが小さくなりません。結果をそのまま残してください"
    ),
    "{where}: {use_id}'s output is not on disk byte for byte at {path}": (
        "{where}: {use_id} の出力が {path} にバイト単位で同じ内容で保存されていません"
    ),
    "{what}: return a string, got {kind}": "{what}: 文字列を返してください（返り値は {kind}）",
    (
        "{what}: the layers would not recognise this marker: it must start with <persisted-output>, end "
        "with </persisted-output> and be at most {most} characters (it is {n})"
    ): (
        "{what}: このマーカーは層に認識されません: <persisted-output> で始まり </persisted-output> で終わり、"
        "{most} 文字以内でなければなりません（{n} 文字です）"
    ),
    "{what}: name the path {path} in the marker": "{what}: マーカーにパス {path} を書いてください",
    "{what}: the size must appear as {size} (with thousands separators, as f'{{n:,}}' writes it)": (
        "{what}: サイズは {size} と書いてください（f'{{n:,}}' が書くように 3 桁区切りで）"
    ),
    "{what}: the size must appear as {size}": "{what}: サイズは {size} と書いてください",
    (
        "{what}: between the first and the last {half} characters, one line must say how many "
        "characters were left out ({count}); found {found}"
    ): (
        "{what}: 先頭と末尾の {half} 文字の間に、省略した文字数（{count}）を示す 1 行が必要です。"
        "見つかったのは {found}"
    ),
    "a short output: a negative count appears; when nothing is left out, say nothing about it": (
        "短い出力: 負の数が出ています。何も省略しないときは省略について何も書かないでください"
    ),
    "{where}: return an int, got {kind} {got}": "{where}: int を返してください（返り値は {kind} {got}）",
    "{where}: expected {want}, got {got}": "{where}: 期待値は {want}、返り値は {got}",
    # compaction.course.checks.pipeline: failure details built from values
    "{what}: each order must be a tuple, as itertools.permutations gives it; {order} is a {kind}": (
        "{what}: 順序はどれもタプルで返してください（itertools.permutations が返す形です）。"
        "{order} は {kind} です"
    ),
    "{where}: the input list was changed": "{where}: 入力のリストが変更されました",
    "{where}: {n} outputs on disk, expected {m}": (
        "{where}: ディスク上の出力が {n} 個あります（期待は {m} 個）"
    ),
    "nothing is cached before the first request, so all its tokens are written ({write}x)": (
        "最初のリクエストの前には何もキャッシュされていないので、"
        "そのトークンはすべて書き込みになります（{write}x）"
    ),
    (
        "its first {shared} of {n} messages are the previous request's, read "
        "({read}x); the shared prefix stops at the first message that differs, every message "
        "after it is written ({write}x)"
    ): (
        "{n} 件のメッセージのうち先頭の {shared} 件は前のリクエストと同じで、読み取り（{read}x）になります。"
        "共通のプレフィックスは最初に違うメッセージで終わり、"
        "それ以降のメッセージはすべて書き込み（{write}x）になります"
    ),
    "; request {k} adds {added}, expected {expected}: {rule}": (
        "。リクエスト {k} で {added} 増えていますが、期待は {expected}: {rule}"
    ),
    "{what}: return a number, got {kind}": "{what}: 数値を返してください（返り値は {kind}）",
    "{what}: expected {want}, got {got}": "{what}: 期待値は {want}、返り値は {got}",
    "{i} ({n} chars) lost: in neither the list nor the store": (
        "{i}（{n} 文字）は失われた: リストにもストアにもない"
    ),
    "{i} ({n} chars) found in the list": "{i}（{n} 文字）はリストにある",
    "{i} ({n} chars) found in the store": "{i}（{n} 文字）はストアにある",
    "no large output": "大きな出力はない",
    "{what}: expected a list of orders (tuples of layer names), got {got}": (
        "{what}: 順序のリスト（層の名前のタプル）を返してください（返り値は {got}）"
    ),
    "order {order} loses an output, your list leaves it out: {fate}": (
        "順序 {order} は出力を失いますが、返したリストに入っていません: {fate}"
    ),
    "order {order} is in your list, but loses nothing: {fate}": (
        "順序 {order} が返したリストに入っていますが、何も失いません: {fate}"
    ),
    "{order} is not an order of budget, snip and micro": (
        "{order} は budget、snip、micro の順序ではありません"
    ),
    "order {order} is in your list more than once": "順序 {order} が返したリストに 2 回以上入っています",
    (
        " (if one OutputStore served every order: a store shared between orders"
        " already holds the file an earlier order saved)"
    ): (
        "（1 つの OutputStore をすべての順序で使い回している場合: 順序の間で共有したストアには、"
        "前の順序が保存したファイルがすでに入っています）"
    ),
    "summary_threshold{args}: expected a ValueError (no room left), got {got}": (
        "summary_threshold{args}: ValueError になるはずです（余地がない）。返り値は {got}"
    ),
    "summary_threshold{args}: expected {want}, got {got}": (
        "summary_threshold{args}: 期待値は {want}、返り値は {got}"
    ),
    " (the boundary case: an answer of exactly {want} tokens fits the reserve, <=)": (
        "（境界のケース: ちょうど {want} トークンの応答は予約に収まります。<=）"
    ),
    (
        " (answers of the same size were counted once; each answer above the reserve counts, "
        "so do not remove repeated sizes)"
    ): (
        "（同じサイズの応答が 1 回しか数えられていません。予約を超える応答はそれぞれ数えるので、"
        "重複したサイズを取り除かないでください）"
    ),
    "answers {sizes}, allowed_over={allowed_over}: expected {want}, got {got}{boundary}": (
        "応答 {sizes}、allowed_over={allowed_over}: 期待値は {want}、返り値は {got}{boundary}"
    ),
    "answers {sizes}, allowed_over={allowed_over}: expected a ValueError, got {got}": (
        "応答 {sizes}、allowed_over={allowed_over}: ValueError になるはずです。返り値は {got}"
    ),
    # compaction.evaluate.compare: the goal's criteria (kept(), goal())
    "probes kept >= {share}": "保持したプローブ >= {share}",
    "recall kept >= {share}": "保持した recall プローブ >= {share}",
    "decision kept >= {share}": "保持した decision プローブ >= {share}",
    "artifacts kept 100%": "保持した artifact プローブ 100%",
    "tokens removed >= {share}": "削減したトークン >= {share}",
    "cost <= {share} of none": "コスト <= none の {share}",
    "no strategy keeping as many probes, removing >= {share}, costs less": (
        "同じ数のプローブを保ち {share} 以上削減する戦略で、より安いものはない"
    ),
    "{names} cost less": "{names} のほうが安い",
    "no strategy cheaper": "より安い戦略はない",
    # compaction.course.checks.levels: failure details built from values
    "({n} entries, expected {m})": "（{n} 項目、期待は {m} 項目）",
    "entry {i}: got {got}, expected {want} {sizes}": "項目 {i}: 返り値は {got}、期待値は {want} {sizes}",
    "entry {i} missing: {want} {sizes}": "項目 {i} がありません: {want} {sizes}",
    "entry {i} not expected: {got} {sizes}": "項目 {i} は余分です: {got} {sizes}",
    "returned {kind}, not a string": "文字列ではなく {kind} が返されました",
    "{n} locations lost, first {first}": "{n} か所が失われました。最初の数か所: {first}",
    "first line {first} is not the totals": "最初の行 {first} が合計の行ではありません",
    "{before} tokens became {after}: less than an 80% cut": (
        "{before} トークンが {after} になりました: 削減が 80% に届きません"
    ),
    "the one match is gone: {got}": "1 件だけのマッチが消えています: {got}",
    "{reason} is none of the three rules' reasons": "{reason} は 3 つのルールのどの理由でもありません",
    "the rule: {rule}": "ルール: {rule}",
    (
        "an edit, with nothing edited yet and two or more reads, searches or "
        "test runs before it in the phase, ends the phase at the edit's index"
    ): (
        "まだ何も編集しておらず、フェーズ内でその前に読み取り・検索・テスト実行が 2 回以上ある編集は、"
        "その編集の位置でフェーズを終える"
    ),
    (
        "an edit of a file the phase has not edited, once it edited others, ends the phase at "
        "the first look since its last edit (at the edit when there is none)"
    ): (
        "ほかのファイルを編集した後で、そのフェーズが編集していないファイルを編集すると、"
        "最後の編集以降で最初に見た位置でフェーズを終える（見ていなければその編集の位置）"
    ),
    (
        "a green test run, after an edit or after the same command was red, ends the "
        "phase two messages after the run"
    ): (
        "編集の後、または同じコマンドが失敗した後にテストが成功すると、"
        "その実行の 2 メッセージ後でフェーズを終える"
    ),
    "({n} ends, expected {m})": "（終わりは {n} 個、期待は {m} 個）",
    "end {i}: got {got}, expected {want}: phase ending at message {at} of {n}; {rule} {sizes}": (
        "終わり {i}: 返り値は {got}、期待値は {want}: {n} 件中メッセージ {at} で終わるフェーズ。"
        "{rule} {sizes}"
    ),
    "end {i} missing: {want}, a phase ending at message {at}; {rule} {sizes}": (
        "終わり {i} がありません: {want}、メッセージ {at} で終わるフェーズ。{rule} {sizes}"
    ),
    (
        "end {i} not expected: {got}; no rule ends a phase there "
        "(a summary ends one without recording it, the last phase stays open) {sizes}"
    ): (
        "終わり {i} は余分です: {got}。そこでフェーズを終えるルールはありません"
        "（要約はフェーズを終えるが記録はしない。最後のフェーズは開いたまま）{sizes}"
    ),
    "a phase summary ends the phase; ": "フェーズの要約はフェーズを終える。",
    "read, search, edit: ": "読み取り、検索、編集: ",
    "five reads and no edit: the phase is still open, nothing is finished; ": (
        "5 回読んで編集なし: フェーズはまだ開いていて、何も終わっていない。"
    ),
    "got {got}, expected {want}": "返り値は {got}、期待値は {want}",
    "got {got}": "返り値は {got}",
    "an edit that names no file changes the one read last; got {got}": (
        "ファイル名のない編集は最後に読んだファイルを変更する。返り値は {got}"
    ),
    # compaction.course.checks.evaluate: failure details built from values
    "{probe_id}: not in your dict; give every probe a list, [] for one that no strategy loses": (
        "{probe_id}: 辞書に入っていません。"
        "すべてのプローブにリストを書いてください（どの戦略も失わないプローブは []）"
    ),
    "{label}: evidence {evidence} is in the context, you said {got}": (
        "{label}: 根拠 {evidence} はコンテキストにありますが、返り値は {got}"
    ),
    "{label}: evidence {evidence} is not in the context, you said {got}": (
        "{label}: 根拠 {evidence} はコンテキストにありませんが、返り値は {got}"
    ),
    "return a list of probe dicts, not {kind}": "プローブの dict のリストを返してください（返り値は {kind}）",
    "ids must be unique: {ids}": "id は重複してはいけません: {ids}",
    "missing kinds: {kinds}": "足りない種類: {kinds}",
    "the session does not answer {ids}; copy evidence from its text, without line numbers": (
        "セッションが答えていません: {ids}。根拠はそのテキストから、行番号を除いて写してください"
    ),
    "no artifact probe names {paths}, which the session modified": (
        "セッションが変更した {paths} を挙げる artifact プローブがありません"
    ),
    (
        "masking 3 keeps every probe the whole session answers: ask about something an old tool result showed"
    ): (
        "masking 3 でも、セッション全体で答えられるプローブがすべて保たれます: "
        "古いツール結果にだけ出てきたことを尋ねてください"
    ),
    "{probe_id}: give a list of strategy names, not {kind} {value}": (
        "{probe_id}: 戦略名のリストを渡してください（渡されたのは {kind} {value}）"
    ),
    "return a dict probe id -> strategies, not {kind}": (
        "プローブ id -> 戦略 の dict を返してください（返り値は {kind}）"
    ),
    "{probe_id}: unknown strategies {unknown}; use {names}": (
        "{probe_id}: 未知の戦略 {unknown}。使えるのは {names}"
    ),
    (
        "{probe_id}: you said lost by {said}; wrong about {wrong} of the "
        "{n} strategies (the measured answer is not shown: look at what each "
        "strategy removes, or measure it with offline_session(40).replay(strategy).score.missed)"
    ): (
        "{probe_id}: 失う戦略は {said} という答えですが、{n} 個の戦略のうち {wrong} 個が間違っています"
        "（実測の答えは表示しません: 各戦略が何を取り除くかを見るか、"
        "offline_session(40).replay(strategy).score.missed で測ってください）"
    ),
    "return a list of layers like default_layers(), not {got}": (
        "default_layers() のような層のリストを返してください（返り値は {got}）"
    ),
    "keep the default's layers in their order, {wanted}; got {names}": (
        "デフォルトの層をその順序のまま残してください（{wanted}）。返り値は {names}"
    ),
    "change exactly one setting, not {n}: {changed}": (
        "設定はちょうど 1 つだけ変えてください（{n} 個変わっています）: {changed}"
    ),
    "costs {mine} of none; the target is at most {target} (the default costs {default})": (
        "コストは none の {mine} です。目標は {target} 以下（デフォルトのコストは {default}）"
    ),
    "keeps {mine} of the probes; the goal is at least {goal} (the default keeps {share})": (
        "保たれたプローブは {mine} です。目標は {goal} 以上（デフォルトは {share} を保ちます）"
    ),
    # compaction.course.__main__: the terminal check
    "error in {where}": "エラー: {where}",
    "no check report found: run the check cells at the end of each exercise": (
        "チェック結果が見つかりません: 各演習の最後にあるチェックのセルを実行してください"
    ),
    "{ok} of {total} check reports pass": "{total} 件のチェック結果のうち {ok} 件が合格",
    "all checks pass": "すべてのチェックに合格しました",
    "not yet: every check passes, but {errors} cell(s) raised an error; fill them in": (
        "もう少しです: チェックはすべて合格していますが、{errors} 個のセルがエラーになりました。"
        "埋めてください"
    ),
    "not yet: {failing} of {total} check reports fail": (
        "まだです: {total} 件のチェック結果のうち {failing} 件が不合格です"
    ),
    # compaction.course.checks.*: check titles that are prose (a function's name stays as it is)
    "one setting, at least 95% of the probes, at most 75% of none": (
        "設定は 1 つだけ、プローブは 95% 以上、コストは none の 75% 以下"
    ),
    "probes for sample_session(30)": "sample_session(30) のプローブ",
    "reactive layer": "リアクティブ層",
    "summary layer": "要約層",
    # compaction.course.checks.*: names of cases built from values (templates) and their parts
    "course session {n}": "コースのセッション {n}",
    "parallel calls": "並列呼び出し",
    "SDK Usage": "SDK の Usage",
    "window {tokens}": "ウィンドウ {tokens}",
    # api_context
    "a quarter of 8,000, keep 3 by default": "8,000 の 4 分の 1、既定で 3 件残す",
    "keep and clear_at_least as asked": "keep と clear_at_least は指定どおり",
    "a real window: half of 200,000, keep 5": "実際のウィンドウ: 200,000 の半分、5 件残す",
    "whole tokens: a quarter of 7,999": "トークンは整数: 7,999 の 4 分の 1",
    "no calls": "呼び出しなし",
    "one call": "呼び出し 1 回",
    "all appended": "すべて追記のみ",
    "read exactly what was left is no break": "残っていた分をちょうど読めばブレークではない",
    "one token less is a break": "1 トークン少なければブレーク",
    "a cleared round in the middle": "途中でクリアされたラウンド",
    "an expired cache reads nothing": "期限切れのキャッシュからは何も読まれない",
    "prompts under the cache minimum leave nothing to break": (
        "キャッシュの最小長に満たないプロンプトにはブレークするものがない"
    ),
    "what a call read and wrote are both left in the cache": (
        "呼び出しが読んだ分も書いた分もキャッシュに残る"
    ),
    "cost at most {n}": "コストは {n} 以下",
    "cost at most {n}: largest request leaves the answer its room": (
        "コストは {n} 以下: 最大のリクエストでも応答の余地が残る"
    ),
    "at the trigger nothing is cleared": "トリガーちょうどでは何もクリアされない",
    "one above the trigger": "トリガーを 1 だけ超える",
    "keep 0": "keep 0",
    "every request over the trigger clears again": "トリガーを超えたリクエストは毎回クリアし直す",
    "keep above the trigger": "keep がトリガーを超える",
    "keep above the number of tool uses": "keep がツール呼び出しの回数を超える",
    "excluded tools are never cleared": "除外したツールはクリアされない",
    "clear_at_least more than a clearing removes": "clear_at_least がクリアで減る量より多い",
    "clear_at_least less than a clearing removes": "clear_at_least がクリアで減る量より少ない",
    "the handmade session": "手書きのセッション",
    "text after results, a string turn": "結果の後のテキストと、文字列のターン",
    "a file changed, another, then the first again": (
        "あるファイルを変更し、別のファイル、そしてまた最初のファイル"
    ),
    # breaker
    "three failures in a row open it": "3 回続けて失敗すると開く",
    "two failures leave it closed": "2 回の失敗では閉じたまま",
    "a success between failures resets the count": "失敗の間に成功があるとカウントはリセットされる",
    "failing every other call never opens it": "1 回おきの失敗では開かない",
    "it stays open after more failures": "さらに失敗しても開いたまま",
    "max_failures=1: one failure opens it": "max_failures=1: 1 回の失敗で開く",
    "max_failures=5, four failures": "max_failures=5、4 回の失敗",
    "no events": "イベントなし",
    "three failures in a row": "3 回続けての失敗",
    "micro and budget between failures do not reset it": "失敗の間の micro や budget ではリセットされない",
    "a reactive compaction or a manual compact does not reset it": (
        "リアクティブコンパクションや手動の compact ではリセットされない"
    ),
    "a failed budget write is not a failed summary": "budget の書き込み失敗は要約の失敗ではない",
    "it opens once, at the first turn it could": "開くのは 1 回だけ、開けた最初のターンで",
    "max_failures=1": "max_failures=1",
    "max_failures=2, after a success": "max_failures=2、成功の後",
    # budget
    "one huge log: {chars} chars of results": "巨大なログ 1 つ: 結果は {chars} 文字",
    "six outputs at once: {chars} chars of results": "6 つの出力を一度に: 結果は {chars} 文字",
    "session {session} to message {message}, results x{times}: {chars} chars of results": (
        "セッション {session} のメッセージ {message} まで、結果 x{times}: 結果は {chars} 文字"
    ),
    "a result no larger than its marker stays": "マーカーより大きくない結果はそのまま残る",
    "a single message": "メッセージ 1 件",
    "the log's error at the end is shown": "ログ末尾のエラーは表示される",
    "a short output is shown whole": "短い出力はそのまま全部表示される",
    "exactly the preview size: whole": "プレビューとちょうど同じ長さ: 全部",
    "one character over: the middle goes": "1 文字超える: 中央が削られる",
    "small previews: 3 and 1 characters": "小さなプレビュー: 3 文字と 1 文字",
    "Claude Code's window": "Claude Code のウィンドウ",
    "chapter 03's window": "第 03 章のウィンドウ",
    "a whole number of characters": "文字数は整数",
    "exactly full: 0": "ちょうど満杯: 0",
    "over the window: 0, not negative": "ウィンドウ超過: 負ではなく 0",
    # condense
    "every exception line kept word for word": "例外の行はすべて一字一句そのまま",
    "the chained exceptions in their order": "連鎖した例外はその順序で",
    "every file and line number kept": "ファイル名と行番号はすべて残る",
    "at least 70% fewer tokens on a long traceback": "長いトレースバックではトークンが 70% 以上減る",
    "a short traceback does not grow": "短いトレースバックは長くならない",
    # evaluate
    "{n} probes, the whole session": "プローブ {n} 個、セッション全体",
    "{n} probes, masked (keep {keep} results)": "プローブ {n} 個、マスク済み（結果を {keep} 件残す）",
    "{n} probes, snipped to {messages} messages": "プローブ {n} 個、{messages} メッセージに snip",
    "upper and lower case are the same": "大文字と小文字は区別しない",
    "extra spaces and new lines do not matter": "余分な空白や改行は関係ない",
    "read_file's line numbers are not part of the file": "read_file の行番号はファイルの一部ではない",
    "a tool call's input is in the context": "ツール呼び出しの入力もコンテキストに含まれる",
    "every evidence string must be there": "根拠の文字列がすべてそろっていなければならない",
    "a cleared result no longer answers": "クリアされた結果ではもう答えられない",
    "at least six well-formed probes": "正しい形のプローブが 6 個以上",
    "all five kinds": "5 種類すべて",
    "each answered by the whole session": "どれもセッション全体で答えられる",
    "an artifact probe for every file modified": "変更したファイルごとに artifact プローブがある",
    "at least one that masking 3 loses": "masking 3 で失われるものが少なくとも 1 つ",
    "probe {name}": "プローブ {name}",
    "one setting of one layer changed": "1 つの層の設定を 1 つだけ変えた",
    "keeps at least 95% of the probes": "プローブの 95% 以上を保つ",
    "costs at most 75% of none": "コストは none の 75% 以下",
    # keep_used
    "a path said later keeps its line": "後で言及されたパスはその行が残る",
    "an identifier in a later tool input": "後のツール入力に出てくる識別子",
    "a number of two or more digits": "2 桁以上の数値",
    "a quoted string": "引用符で囲んだ文字列",
    "plain words mark nothing": "ありふれた単語では行に印が付かない",
    "a single digit marks nothing": "1 桁の数字では印が付かない",
    "the user's words do not count": "ユーザーの発言は数えない",
    "nothing said later": "後で何も言及されない",
    "at most max_lines lines": "最大 max_lines 行",
    "max_lines=1": "max_lines=1",
    "a created file is named": "作成したファイルの名前が載る",
    "an edit shows the line it added": "編集は追加した行を示す",
    "a failed command: its exit status and error": "失敗したコマンド: 終了ステータスとエラー",
    "an earlier ledger is carried over": "以前の台帳（ledger）は引き継がれる",
    "bounded, and a failure survives the bound": "上限があり、失敗は上限を超えても残る",
    "the course's runner": "コースのテストランナー",
    "pytest names failures first": "pytest は失敗を先に示す",
    "all green: 0 failed": "すべて成功: 0 failed",
    "the last summary line wins": "最後のサマリー行が優先される",
    "skipped is not passed": "skipped は passed ではない",
    "exit 0 is said too": "exit 0 も伝える",
    "{number} said as {said}": "{number} を {said} と書いた場合",
    "{number} is not {said}": "{number} は {said} ではない",
    "a path still counts": "パスは引き続き数える",
    "plain words still mark nothing": "ありふれた単語では引き続き行に印が付かない",
    "a one-digit number said marks nothing": "1 桁の数値に言及しても印が付かない",
    "the user's numbers do not count": "ユーザーが書いた数値は数えない",
    "lines in the result's order": "行は結果の中の順序で",
    # levels
    "keeps every path and line of a 2,000-line grep": "2,000 行の grep のパスと行をすべて残す",
    "keeps every path and line of another grep": "別の grep のパスと行をすべて残す",
    "starts with the totals line of the package": "パッケージと同じ合計行で始まる",
    "cuts tokens by at least 80%": "トークンを 80% 以上減らす",
    "keeps a single match": "一致が 1 件だけでも残す",
    "identical on the scripted fix session": "台本どおりの修正セッションで同一",
    "identical on the course's sample session": "コースのサンプルセッションで同一",
    "identical on a session with a phase summary in it": "フェーズ要約を含むセッションで同一",
    "the first edit after two reads ends research": "2 回読んだ後の最初の編集で調査フェーズが終わる",
    "a session that only reads has nothing finished": "読むだけのセッションでは何も終わっていない",
    "lists every edited file with its line": "編集したファイルをすべて行と一緒に挙げる",
    "lists a file created with write_file": "write_file で作成したファイルも挙げる",
    "an edit without a path changes the file read last": "パスのない編集は最後に読んだファイルを変更する",
    # memory
    "`..` climbs out of the folder": "`..` でフォルダーの外に出る",
    "`..` deeper in the path": "パスの奥にある `..`",
    "an absolute path elsewhere": "別の場所の絶対パス",
    "a relative path": "相対パス",
    "a name that only starts like the root": "先頭だけがルートと同じ名前",
    "a NUL in a name": "名前の中の NUL",
    "a newline in a name": "名前の中の改行",
    "a backslash": "バックスラッシュ",
    "a link to a file outside": "外のファイルへのリンク",
    "a link as a folder in the middle": "途中のフォルダーがリンク",
    "a link back inside": "内側を指すリンク",
    "the root itself": "ルートそのもの",
    "a note": "メモ",
    "a note in folders not made yet": "まだないフォルダーの中のメモ",
    "a folder with a trailing /": "末尾に / の付いたフォルダー",
    "%2e%2e: a name, or refused": "%2e%2e: 名前として扱うか、拒否する",
    "symbolic links planted at the temporary names": "一時ファイルの名前に仕掛けたシンボリックリンク",
    "hard links planted at the temporary names": "一時ファイルの名前に仕掛けたハードリンク",
    "the first line, quoted at the end of an entry": "先頭行の見出しが、エントリーの末尾に引用されている",
    "the last line, starting another heading": "最終行の見出しが、別の見出しの先頭と同じ",
    "a name in Japanese": "日本語の名前",
    "view: a file's lines, numbered from 1": "view: ファイルの行に 1 から番号を付ける",
    "view: view_range [2, 3] shows lines 2-3": "view: view_range [2, 3] で 2〜3 行目を表示",
    "view: /memories lists the files in it": "view: /memories の中のファイルを一覧にする",
    "create: writes file_text, makes its folders": "create: file_text を書き、必要なフォルダーを作る",
    "create never overwrites": "create は上書きしない",
    "str_replace: the one occurrence": "str_replace: ただ 1 つの出現箇所",
    "str_replace: text found twice is refused": "str_replace: 2 回見つかるテキストは拒否",
    "str_replace: text not found is refused": "str_replace: 見つからないテキストは拒否",
    "insert at line 0: the top": "0 行目への insert: 先頭",
    "insert after the last line": "最後の行の後への insert",
    "insert past the end is refused": "末尾より後への insert は拒否",
    "delete: a file and a folder": "delete: ファイルとフォルダー",
    "delete /memories itself is refused": "/memories そのものの delete は拒否",
    "rename: moves, makes the folder": "rename: 移動し、フォルダーを作る",
    "rename onto an existing file is refused": "既存のファイルへの rename は拒否",
    "an unknown command is refused": "知らないコマンドは拒否",
    "`..` is refused by view, create and delete": "view・create・delete は `..` を拒否",
    "a file over 102,400 bytes is refused": "102,400 バイトを超えるファイルは拒否",
    "a hard-linked note: the file outside is unchanged": "ハードリンクされたメモ: 外のファイルは変わらない",
    "a plain note is edited": "普通のメモは編集される",
    "no temporary file is left": "一時ファイルを残さない",
    "text found twice is refused": "2 回見つかるテキストは拒否",
    "`..` is still refused": "`..` は引き続き拒否",
    "an empty section": "空のセクション",
    "newest first": "新しいものが先頭",
    "the same entry in two sections": "2 つのセクションにある同じ項目",
    "a heading that starts another heading": "別の見出しの先頭と同じ見出し",
    "the heading quoted in an entry": "項目の中で引用された見出し",
    "the last line, no newline after it": "最後の行で、後ろに改行がない",
    "a long notes file: the edit stays small": "長いメモファイル: 編集は小さいまま",
    "a missing section is refused": "ないセクションは拒否",
    # messages
    "course session {n} is sound": "コースのセッション {n} は正しい形",
    "text before results": "結果の前にテキスト",
    "orphan result": "対応する呼び出しのない結果",
    "unanswered tool_use": "結果のない tool_use",
    "unanswered at the end": "末尾に結果のない呼び出し",
    "first message from the assistant": "最初のメッセージが assistant から",
    "two user messages in a row": "user メッセージが 2 つ続く",
    "orphan behind text: orphan first": "テキストの後ろの孤立した結果: 孤立が先",
    "a single user message is sound": "user メッセージ 1 件だけなら正しい形",
    "course session {n} comes back equal": "コースのセッション {n} は同じものが返る",
    "a placeholder before results": "結果の前のプレースホルダー",
    "a reminder after results": "結果の後のリマインダー",
    "three in a row": "3 つ続く",
    "an assistant message split in two": "2 つに分かれた assistant メッセージ",
    "an empty list": "空のリスト",
    "crashed while the tools ran": "ツール実行中にクラッシュ",
    "the user typed instead": "代わりにユーザーが入力した",
    "one of several results lost": "複数の結果のうち 1 つが失われた",
    "text where a result belongs": "結果があるべき場所にテキスト",
    "an equal message at two places": "同じメッセージが 2 か所に",
    # micro
    "session {n}, {k} settings": "セッション {n}、{k} 通りの設定",
    "a marker and a placeholder stay as they are": "マーカーとプレースホルダーはそのまま",
    "a result of exactly min_chars={n} is cleared (<, not <=)": (
        "ちょうど min_chars={n} の結果はクリアされる（<= ではなく <）"
    ),
    "session {n}, growing, recent_turns={k}": "セッション {n}、伸びていく各時点、recent_turns={k}",
    "{n} calls, keep {k} (odd)": "呼び出し {n} 回、{k} 件残す（奇数）",
    "{n} calls, keep {k} (even)": "呼び出し {n} 回、{k} 件残す（偶数）",
    "{n} calls, keep {k}": "呼び出し {n} 回、{k} 件残す",
    "keep as many as the calls' results": "呼び出しの結果と同じ数だけ残す",
    "keep 0: every result is cleared before it is sent": "0 件残す: どの結果も送信前にクリアされる",
    "a single call": "呼び出し 1 回だけ",
    # on_demand
    "well under the threshold": "しきい値を大きく下回る",
    "a cache read is input too": "キャッシュ読み取りも入力",
    "a cache write is input too": "キャッシュ書き込みも入力",
    "the tool results about to be sent count": "これから送るツール結果も数える",
    "the reply counts": "応答も数える",
    "exactly at the threshold is not over": "しきい値ちょうどは超過ではない",
    "one token over": "1 トークン超過",
    "no tool results to send": "送るツール結果なし",
    "the SDK's own usage object": "SDK 自身の usage オブジェクト",
    "nothing diverged": "何も分岐しなかった",
    "one micro round": "micro 1 ラウンド",
    "rounds add up": "ラウンドは積み上がる",
    "two layers before one request are both charged": "1 つのリクエストの前の 2 つの層はどちらも計上される",
    "a summary and a micro round": "要約と micro のラウンド",
    "a break no layer caused": "どの層も原因でないブレーク",
    "reasons without missed tokens cost nothing": "取りこぼしたトークンのない理由はコストゼロ",
    "a previous message not found costs nothing": "前のメッセージが見つからない場合はコストゼロ",
    "a model change counts like any miss": "モデルの変更も他のミスと同じく数える",
    # pipeline
    "explicit reserve and buffer": "reserve と buffer を明示",
    "a buffer of zero is a buffer": "buffer 0 も buffer",
    "no room left is a ValueError": "余地がなければ ValueError",
    "allowed_over=0: the largest answer": "allowed_over=0: 最大の応答",
    "allowed_over=1: the second largest": "allowed_over=1: 2 番目に大きい応答",
    "an answer of exactly the reserve fits (the boundary, <=)": (
        "reserve ちょうどの応答は収まる（境界、<=）"
    ),
    "two answers of the same size both count": "同じ大きさの応答 2 つはどちらも数える",
    "more allowed over than answers: no reserve": "allowed_over が応答数より多い: reserve なし",
    "as many allowed over as answers: no reserve": "allowed_over が応答数と同じ: reserve なし",
    "no answers is a ValueError": "応答がなければ ValueError",
    "a negative allowed_over is a ValueError": "負の allowed_over は ValueError",
    "{n} seeded lists of answers, ties included": "シード付きで作った応答のリスト {n} 個、同点を含む",
    "session {n}, growing, {k} settings": "セッション {n}、伸びていく各時点、{k} 通りの設定",
    "exactly max_messages: no snip": "ちょうど max_messages: snip しない",
    "exactly micro_at: no micro (>, not >=)": "ちょうど micro_at: micro しない（>= ではなく >）",
    "frees exactly clear_at_least: micro": "ちょうど clear_at_least を空ける: micro する",
    "one token short of clear_at_least: no micro": "clear_at_least に 1 トークン足りない: micro しない",
    "session {n}: appending only": "セッション {n}: 追記のみ",
    "session {n}: micro on every call": "セッション {n}: 毎回 micro",
    "no requests cost nothing": "リクエストがなければコストゼロ",
    "the first request is all written": "最初のリクエストはすべてキャッシュ書き込み",
    "the same request twice is read": "同じリクエストを 2 回送ればキャッシュ読み取り",
    "one large output among five": "5 つの中に大きな出力が 1 つ",
    "the large output last": "大きな出力が最後",
    "only small outputs: no order loses": "小さな出力だけ: どの順序でも損をしない",
    "two large outputs": "大きな出力が 2 つ",
    # reactive
    "400 prompt is too long": "400 prompt is too long",
    "400 input length and max_tokens exceed context limit": (
        "400 input length and max_tokens exceed context limit"
    ),
    "413 request too large": "413 request too large",
    "400 unpaired tool_use": "400 ペアになっていない tool_use",
    "400 max_tokens too large": "400 max_tokens が大きすぎる",
    "400 context limit named in another error": "別のエラーの中で言及された 400 context limit",
    "429 rate limit": "429 レート制限",
    "500 that mentions the words": "その語句を含む 500",
    "529 overloaded": "529 overloaded",
    "a timeout": "タイムアウト",
    "a plain ValueError with the words": "その語句を含むただの ValueError",
    "a KeyError": "KeyError",
    "400 prompt is too long by one token": "1 トークン超過の 400 prompt is too long",
    "400 context limit, the answer's room decides": "400 context limit、応答の余地で決まる",
    "400 the words without numbers": "数値のない語句だけの 400",
    "500 with the words and numbers": "語句と数値を含む 500",
    "writes the whole list to a transcript, before the summary call": (
        "要約の呼び出しより前に、リスト全体をトランスクリプトに書く"
    ),
    "returns a summary message, then the end of the list unchanged": (
        "要約メッセージを返し、その後にリストの末尾をそのまま続ける"
    ),
    "the tail starts at an assistant message; the result is valid": (
        "末尾は assistant メッセージから始まり、結果は正しい形"
    ),
    "the newest assistant message stays, thinking blocks and all": (
        "最新の assistant メッセージは thinking ブロックも含めてそのまま残る"
    ),
    "the result is smaller than a long input": "結果は長い入力より小さい",
    "leaves the input list unchanged": "入力のリストを変更しない",
    "the longest pair-safe tail within the budget, on every course session": (
        "どのコースのセッションでも、予算内でペアを壊さない最長の末尾"
    ),
    "starts at an assistant message, at the end of the list, never the whole list": (
        "assistant メッセージから始まり、リストの末尾にあり、リスト全体にはならない"
    ),
    "identical to the package on every course session and keep": (
        "どのコースのセッションと keep でもパッケージと同一"
    ),
    "never starts with a tool_result; follows a summary validly": (
        "tool_result から始まらず、要約の後に正しくつながる"
    ),
    "keeps at least keep messages, from the end": "末尾から少なくとも keep 件のメッセージを残す",
    # replay
    "split records, and records on the chain that are no messages": (
        "分割されたレコードと、チェーン上にあるメッセージでないレコード"
    ),
    "parallel results of the 80-turn session": "80 ターンのセッションの並列の結果",
    "a rewound branch is not replayed": "巻き戻されたブランチはリプレイしない",
    "a branch rewound at the first reply": "最初の応答で巻き戻されたブランチ",
    "plain chat": "ただのチャット",
    "the system turn is not a message": "system のターンはメッセージではない",
    "a call and its response": "呼び出しとその応答",
    "two calls in one turn, text around them": "1 ターンに 2 つの呼び出し、前後にテキスト",
    "ids count over the whole conversation": "id は会話全体で通し番号",
    "a call the conversation never answered": "会話の中で答えられなかった呼び出し",
    "masking 3: an early test failure": "masking 3: 序盤のテスト失敗",
    "summary only: a line of a file read early": "summary only: 序盤に読んだファイルの 1 行",
    "pipeline: a line of a file read early": "pipeline: 序盤に読んだファイルの 1 行",
    "masking 3: the task is never lost": "masking 3: タスクは失われない",
    "a fact the session never held": "セッションに一度もなかった事実",
    # restore
    "each block holds one whole file as read_file shows it": (
        "各ブロックは read_file が表示する形でファイル 1 つを丸ごと含む"
    ),
    "only files the package restores too, newest read first": (
        "パッケージも復元するファイルだけ、最後に読んだものから"
    ),
    "never a file changed on disk since the agent read it": (
        "エージェントが読んだ後にディスク上で変わったファイルは復元しない"
    ),
    "never a file deleted since the agent read it (and no error)": (
        "エージェントが読んだ後に削除されたファイルは復元しない（エラーにもしない）"
    ),
    "never a read that micro cleared": "micro がクリアした読み取りは復元しない",
    "at most max_files files": "最大 max_files 個のファイル",
    "everything fits": "すべて収まる",
    "max_files stops the list": "max_files でリストが止まる",
    "a big file is skipped, older small ones still come": (
        "大きなファイルは飛ばし、それより古い小さなファイルは入る"
    ),
    "a file that reaches the total exactly fits": "合計にちょうど達するファイルは収まる",
    "one token over the total is skipped": "合計を 1 トークン超えるものは飛ばす",
    "max_files counts the files chosen, not the files looked at": (
        "max_files は調べたファイルではなく選んだファイルを数える"
    ),
    "no file fits": "収まるファイルがない",
    "no candidates": "候補なし",
    "max_files 0": "max_files 0",
    # snip
    "{label}, {n} sizes": "{label}、{n} 通りのサイズ",
    "exactly max_messages: unchanged": "ちょうど max_messages: 変更なし",
    "one more than max_messages: snipped": "max_messages より 1 つ多い: snip される",
    "{label} ({tokens} tokens), {n} budgets": "{label}（{tokens} トークン）、{n} 通りの予算",
    "exactly at the budget: unchanged": "ちょうど予算どおり: 変更なし",
    "a tail that fills the budget exactly is kept (<=, not <)": (
        "予算をちょうど満たす末尾は残る（< ではなく <=）"
    ),
    "a tiny budget keeps the newest turn": "ごく小さな予算でも最新のターンは残る",
    "keep_head=0 keeps the task": "keep_head=0 でもタスクは残る",
    "{label} with requests at {at}": "{label}、{at} に依頼あり",
    "{label}, nothing to quote": "{label}、引用するものなし",
    # summarize
    "asks with the whole history and the prompt as its last block": (
        "履歴全体を送り、最後のブロックをプロンプトにして依頼する"
    ),
    "returns one user message that passes validate": "validate を通る user メッセージを 1 つ返す",
    "keeps the summary, drops the analysis": "summary を残し、analysis を捨てる",
    "names the transcript file in the message": "メッセージの中でトランスクリプトのファイル名を示す",
    "identical to the package on every course session": "どのコースのセッションでもパッケージと同一",
    "identical with a focus": "focus を付けても同一",
    "the request passes validate and ends with the prompt": (
        "リクエストは validate を通り、プロンプトで終わる"
    ),
    "one analysis, then the summary": "analysis が 1 つ、その後に summary",
    "no analysis at all": "analysis がまったくない",
    "analysis and summary with blank lines around": "前後に空行のある analysis と summary",
    "two analyses, text between and after": "analysis が 2 つ、間と後にテキスト",
    "an analysis after the summary": "summary の後の analysis",
    "an analysis never closed runs to the end": "閉じられていない analysis は末尾まで続く",
    "plain text, no tags": "タグのないただのテキスト",
    "a text answer with analysis and summary": "analysis と summary を含むテキストの応答",
    "a summary spread over two text blocks": "2 つのテキストブロックにまたがる summary",
    "a summary that also calls a tool": "ツールも呼び出す summary",
    "only a tool call": "ツール呼び出しだけ",
    "an empty answer": "空の応答",
    "blank text": "空白だけのテキスト",
    "text without summary tags": "summary タグのないテキスト",
    "an empty summary": "空の summary",
    "only an analysis": "analysis だけ",
    # tokens
    "session {n}, {method}: two messages appended": "セッション {n}、{method}: メッセージを 2 つ追記",
    "session {n}: nothing appended is the API's figure": (
        "セッション {n}: 何も追記しなければ API の数値そのもの"
    ),
    "session {n}: a rewritten message drops the anchor": (
        "セッション {n}: 書き換えたメッセージがあるとアンカーを捨てる"
    ),
    "session {n}: a shorter list drops the anchor": "セッション {n}: リストが短くなるとアンカーを捨てる",
    "nothing sent yet: a full estimate": "まだ何も送っていない: 全体を見積もる",
    "{kind}, no cache fields": "{kind}、キャッシュのフィールドなし",
    "{kind}, cache fields None": "{kind}、キャッシュのフィールドが None",
    "{kind}, a cache write": "{kind}、キャッシュ書き込み",
    "{kind}, a cache read": "{kind}、キャッシュ読み取り",
    "{kind}, a cache read and a write": "{kind}、キャッシュ読み取りと書き込み",
    "a request of 0 input tokens: 0.0": "入力 0 トークンのリクエスト: 0.0",
    "window {window}, output {output}, low by {percent}%": (
        "ウィンドウ {window}、出力 {output}、見積もりが {percent}% 低い"
    ),
    "an exact fit is allowed (<=, not <)": "ちょうど収まるのは許される（< ではなく <=）",
    "no room left: 0": "余地なし: 0",
    "more output than window: 0": "出力がウィンドウより大きい: 0",
    # compaction.views.widgets: legends, headers, buttons
    "holds a placeholder, marker or summary: its own words under the row": (
        "プレースホルダー、マーカー、要約のいずれかを含む: その文面は行の下に表示"
    ),
    "changed by the pass: the placeholder's or marker's own words below, tokens before → after": (
        "この処理で変更: プレースホルダーやマーカーの文面は下に表示、トークンは変更前 → 変更後"
    ),
    "✂ dropped: messages that left the context, how many, their tokens, and where they went": (
        "✂ 削除: コンテキストから外れたメッセージ、その件数とトークン数、移動先"
    ),
    "new: a message the pass wrote (a summary)": "新規: この処理が書いたメッセージ（要約）",
    "≡ unchanged messages, folded: open to see them": "≡ 変更のないメッセージ（折りたたみ）: 開くと表示",
    "bars: a message's tokens, one scale for the whole view (faded: before the pass)": (
        "バー: メッセージのトークン数。ビュー全体で同じ縮尺（薄い色: 処理前）"
    ),
    "numbers: the message's place in the list before the pass; tokens in {unit}": (
        "番号: 処理前のリストでのメッセージの位置。トークン数は {unit} で計測"
    ),
    "after {name}: the tool reported an error (is_error)": (
        "{name} の後ろに付く: ツールがエラーを報告した（is_error）"
    ),
    "▸ click a row to read its content": "▸ 行をクリックすると内容を表示",
    "system and tools": "システムとツール",
    "user text": "ユーザーのテキスト",
    "assistant text": "アシスタントのテキスト",
    "tool calls": "ツール呼び出し",
    "tool results": "ツール結果",
    "placeholders and markers": "プレースホルダーとマーカー",
    "summary": "要約",
    " of {window}": " / {window}",
    ", threshold {threshold}": "、しきい値 {threshold}",
    "in context: {was}{total}{room} tokens ({unit}){limit}": (
        "コンテキスト内: {was}{total}{room} トークン（{unit}）{limit}"
    ),
    " ({percent}% of the window)": "（ウィンドウの {percent}%）",
    "threshold {tokens}": "しきい値 {tokens}",
    "before": "変更前",
    "after": "変更後",
    "{messages} messages, {tokens} tokens ({unit})": "{messages} メッセージ、{tokens} トークン（{unit}）",
    "MessageListView({header}, showing {shown})": "MessageListView({header}、{shown} 件を表示)",
    "PipelineStepper({n} pass; {label})": "PipelineStepper({n} 回の処理; {label})",
    "PipelineStepper({n} passes; {label})": "PipelineStepper({n} 回の処理; {label})",
    "… {hidden} more messages ({first}-{last})": "… ほかに {hidden} メッセージ（{first}-{last}）",
    "show more": "さらに表示",
    "show more ({next} of {hidden})": "さらに表示（残り {hidden} 件のうち {next} 件）",
    "saved {tokens}, {percent}%": "{tokens} 削減、{percent}%",
    "saved 0": "削減 0",
    ", added {added}": "、追加 {added}",
    "kept {same}, replaced {changed}, dropped {dropped}{extra} messages": (
        "メッセージ: 維持 {same}、置換 {changed}、削除 {dropped}{extra}"
    ),
    "{kept}; tokens {t0} -> {t1} ({saved})": "{kept}。トークン {t0} -> {t1}（{saved}）",
    "{before} -> {after}: {change} ({unit})": "{before} -> {after}: {change}（{unit}）",
    "message {first}": "メッセージ {first}",
    "messages {first}-{last}": "メッセージ {first}-{last}",
    "in transcript {path}": "トランスクリプト {path} に保存",
    "no transcript named (saved_to=): a bare layer keeps nothing, the pipeline writes one first": (
        "トランスクリプトの指定なし（saved_to=）: 層を単体で使うと何も残らない。パイプラインは先に書き出す"
    ),
    "✂ {span} dropped: {n} {messages}, {tokens} tokens, {where}": (
        "✂ {span} を削除: {n} {messages}、{tokens} トークン、{where}"
    ),
    "messages": "件のメッセージ",
    "message": "件のメッセージ",
    "new": "新規",
    "≡ messages {first}-{last} unchanged: {n} messages, {tokens} tokens": (
        "≡ メッセージ {first}-{last} は変更なし: {n} メッセージ、{tokens} トークン"
    ),
    "{t0} -> {t1} tokens, {m0} -> {m1} messages": "{t0} -> {t1} トークン、{m0} -> {m1} メッセージ",
    "the list came out unchanged (give compactor= to see the trigger)": (
        "リストは変わらなかった（compactor= を渡すとトリガーが表示される）"
    ),
    "pass {k}/{n}: {name}, tokens {t0} -> {t1}": "処理 {k}/{n}: {name}、トークン {t0} -> {t1}",
    "{head}; did nothing: {reason}": "{head}。何もしなかった: {reason}",
    "input": "入力",
    "changed": "変更あり",
    "did nothing": "何もしなかった",
    "pass": "処理",
    "layer": "層",
    "tokens ({unit})": "トークン（{unit}）",
    "what it did, or why not": "したこと、またはしなかった理由",
    "◀ prev": "◀ 前へ",
    "next ▶": "次へ ▶",
    "pass {k}: {name}": "処理 {k}: {name}",
    " (did nothing)": "（何もしなかった）",
    "the list came out unchanged": "リストは変わらなかった",
    # compaction.course.checks.{tokens,summarize,restore,breaker,reactive,condense}: details built from values
    "; a share is between 0 and 1, not a percentage": (
        "。割合は 0 から 1 の間の値で、パーセントではありません"
    ),
    "; divide by all the input tokens of the request, not by `input_tokens` alone": (
        "。`input_tokens` だけでなく、リクエストのすべての入力トークンで割ってください"
    ),
    "HTTP {status} {message}: returned {got}; only a 400 refusal names a count": (
        "HTTP {status} {message}: 返り値は {got}。数を示すのは 400 の拒否だけです"
    ),
    "a dict": "dict",
    "a file one token over the total does not fit; skip it": (
        "合計を 1 トークンでも超えるファイルは収まらないので、飛ばす"
    ),
    "a file that reaches the total exactly still fits (<=)": "合計にちょうど達するファイルはまだ収まる（<=）",
    "a six-line traceback grew by more than 20 tokens; return a short output unchanged": (
        "6 行のトレースバックが 20 トークンより多く増えました。短い出力はそのまま返してください"
    ),
    "a success resets the count: only failures in a row count": (
        "成功するとカウントは 0 に戻る。数えるのは連続した失敗だけ"
    ),
    (
        "after summary {call} ({shown}, max_failures={limit}): {state}, the package's is {value}; the "
        "rule: {rule}"
    ): (
        "要約 {call} 回目のあと（{shown}、max_failures={limit}）: あなたのブレーカーは{state}、"
        "パッケージのものは{value}。規則: {rule}"
    ),
    "at most max_files files, the newest first": "最大 max_files 個のファイルを、新しいものから",
    "block {i} ({path}): the file is not there as read_file shows it (numbered lines)": (
        "ブロック {i}（{path}）: ファイルが read_file の表示どおり（行番号付き）に入っていません"
    ),
    "closed": "閉じている",
    "differs from the package on a {n}-message list": "{n} メッセージのリストで、パッケージと違います",
    "events {shown}: got {got}, it opens at turn {want} (max_failures={limit})": (
        "イベント {shown}: 返り値は {got}。ブレーカーが開くのはターン {want} です（max_failures={limit}）"
    ),
    "events {shown}: said it opened at turn {got}; it never opens": (
        "イベント {shown}: ターン {got} で開いたとしていますが、一度も開きません"
    ),
    "for the answer {answer}: ": "応答 {answer} について: ",
    "for the content {content}: ": "content {content} について: ",
    "it is a refusal of a request too big for the window": (
        "これはウィンドウに対して大きすぎるリクエストの拒否です"
    ),
    "it is not one": "これはそうではありません",
    "it opens at max_failures, not before": "開くのは max_failures に達したときで、それより前ではない",
    "keep={keep} on a {n}-message list: got {n1} messages, expected {n2}": (
        "{n} メッセージのリストで keep={keep}: 返り値は {n1} メッセージ、期待は {n2}"
    ),
    "keep={keep}: only {n} messages kept": "keep={keep}: 残ったのは {n} メッセージだけです",
    "keep={keep}: the tail is empty": "keep={keep}: 末尾が空です",
    "keep={keep}: the tail starts with a tool_result": "keep={keep}: 末尾が tool_result から始まっています",
    "max_failures failures in a row open it": "max_failures 回続けて失敗すると開く",
    "max_files counts the files chosen; a file skipped for the total does not use up a place": (
        "max_files が数えるのは選んだファイル。合計のために飛ばしたファイルは枠を使わない"
    ),
    "max_files={limit}: {n} files restored": "max_files={limit}: {n} 個のファイルを復元しました",
    "max_files={limit}: {n} files restored, the package restores {n1}": (
        "max_files={limit}: {n} 個のファイルを復元しました。パッケージが復元するのは {n1} 個です"
    ),
    (
        "max_tokens={budget} on a {n}-message list: got {n1} messages, the longest pair-safe tail "
        "within it has {n2}"
    ): (
        "{n} メッセージのリストで max_tokens={budget}: 返り値は {n1} メッセージ。"
        "その範囲でペアを壊さない最長の末尾は {n2} メッセージです"
    ),
    (
        "max_tokens={budget} on a {n}-message list: the boundary case, a tail of exactly {budget1} "
        "tokens fits (at most, <=) and has {n2} messages; got {n3}"
    ): (
        "{n} メッセージのリストで max_tokens={budget}: 境界のケースです。ちょうど {budget1} "
        "トークンの末尾は収まり（以下、<=）、{n2} メッセージあります。返り値は {n3}"
    ),
    "max_tokens={budget} on a {n}-message list: your tail is {size} tokens": (
        "{n} メッセージのリストで max_tokens={budget}: あなたの末尾は {size} トークンです"
    ),
    "max_tokens={budget}: the tail starts with a {value} message": (
        "max_tokens={budget}: 末尾が {value} メッセージから始まっています"
    ),
    "newest first; skip a file that would pass the total and try the next": (
        "新しいものから。合計を超えるファイルは飛ばして次を試す"
    ),
    "once open, more failures keep it open": "一度開いたら、さらに失敗しても開いたまま",
    "open": "開いている",
    "order {got}: newest read first is {package}": (
        "順序 {got}: 最も新しく読んだものから並べると {package} です"
    ),
    "restored {extra}, which the agent did not see as it is on disk now": (
        "{extra} を復元しましたが、エージェントはそれをディスク上のいまの形では見ていません"
    ),
    (
        "restored {n} files from a list where micro had cleared every read: the agent's last view of "
        "them is a placeholder, not the file"
    ): (
        "micro がすべての読み取りをクリアしたリストから {n} 個のファイルを復元しました。"
        "エージェントが最後に見たのはファイルではなくプレースホルダーです"
    ),
    "the SDK's Usage object (read fields as attributes)": (
        "SDK の Usage オブジェクト（フィールドは属性として読む）"
    ),
    "the last block must be the summary prompt, starting with NO_TOOLS_HEAD": (
        "最後のブロックは、NO_TOOLS_HEAD で始まる要約プロンプトでなければなりません"
    ),
    "with sizes={value}, max_files={max_files}, max_total_tokens={total}: ": (
        "sizes={value}、max_files={max_files}、max_total_tokens={total} のとき: "
    ),
    "{given}an <analysis> part is left at character {where}: {got}": (
        "{given}文字 {where} に <analysis> の部分が残っています: {got}"
    ),
    "{given}chose {got}, the rule chooses {want} ({rule})": (
        "{given}{got} を選びましたが、規則が選ぶのは {want} です（{rule}）"
    ),
    "{given}chose {got}: some of these are not candidates": (
        "{given}{got} を選びましたが、候補でないものが含まれています"
    ),
    "{given}chose {got}: {used} tokens, over the total": (
        "{given}{got} を選びました: {used} トークンで、合計を超えています"
    ),
    "{given}chose {n} files, over max_files": "{given}{n} 個のファイルを選びました。max_files を超えています",
    "{given}got {got}, expected {want}": "{given}返り値は {got}、期待は {want}",
    (
        "{given}got {got}, expected {want}: the text blocks are consecutive pieces of one answer, so "
        "join them with nothing between them ({joined}...)"
    ): (
        "{given}返り値は {got}、期待は {want}。テキストブロックは 1 つの応答の連続した断片なので、"
        "間に何も入れずにつなげてください（{joined}...）"
    ),
    "{given}must raise SummaryFailed, but returned {got}": (
        "{given}SummaryFailed を送出すべきですが、{got} を返しました"
    ),
    "{given}raised SummaryFailed, but the answer holds a summary: {want}": (
        "{given}SummaryFailed を送出しましたが、応答には要約があります: {want}"
    ),
    "{given}returned {kind}, expected a string": "{given}{kind} を返しました。文字列を返してください",
    "{given}surrounding whitespace is left: {got}...; strip the result": (
        "{given}前後の空白が残っています: {got}...。結果を strip してください"
    ),
    "{message}: returned {got}, expected {want} tokens over": (
        "{message}: 返り値は {got}、期待は {want} トークンの超過です"
    ),
    "{message}: returned {got}; no count in this error; expected None": (
        "{message}: 返り値は {got}。このエラーには数がないので、期待は None です"
    ),
    "{name}: expected a list of ONE message, got {kind} of length {value}": (
        "{name}: メッセージ 1 つのリストを期待しましたが、長さ {value} の {kind} でした"
    ),
    "{name}: expected a summary message and a tail, got {kind} of length {value}": (
        "{name}: 要約メッセージと末尾を期待しましたが、長さ {value} の {kind} でした"
    ),
    "{name}: messages 1-{value} of the result are not the last {n} messages of the input, unchanged": (
        "{name}: 結果のメッセージ 1-{value} が、入力の最後の {n} メッセージそのままではありません"
    ),
    "{name}: no file in transcript_dir reads back as the whole list": (
        "{name}: transcript_dir のどのファイルを読み戻しても、リスト全体になりません"
    ),
    "{name}: no file in transcript_dir reads back as the {n} messages (one JSON object per line, in order)": (
        "{name}: transcript_dir のどのファイルを読み戻しても、{n} 個のメッセージになりません（1 "
        "行に JSON オブジェクト 1 つ、順番どおり）"
    ),
    "{name}: raised {kind}: {got}": "{name}: {kind} を送出しました: {got}",
    "{name}: returned {kind}, expected a string": "{name}: {kind} を返しました。文字列を返してください",
    "{name}: the answer's <analysis> reached the new list; keep only the summary": (
        "{name}: 応答の <analysis> が新しいリストに入っています。要約だけを残してください"
    ),
    "{name}: the exception line {line} is not kept as a line of its own": (
        "{name}: 例外の行 {line} が、独立した行として残っていません"
    ),
    "{name}: exception {k} of {n} ({line}) is missing": (
        "{name}: {n} 個のうち {k} 番目の例外（{line}）がありません"
    ),
    (
        "{name}: exception {k} of {n} ({line}) is missing or out of order; keep them in the"
        " order the traceback raised them, not sorted"
    ): (
        "{name}: {n} 個のうち {k} 番目の例外（{line}）がないか、順序が違います。"
        "並べ替えず、トレースバックが送出した順に残してください"
    ),
    # compaction.course.checks.condense: the tracebacks a row names
    "the chained traceback (seed 0)": "連鎖したトレースバック（シード値 0）",
    "a deeper one (seed 1)": "もっと深いもの（シード値 1）",
    "a short one": "短いもの",
    "exceptions not in alphabetical order (seed 2)": "例外がアルファベット順でないもの（シード値 2）",
    "{name}: the first message must be the summary, a user message": (
        "{name}: 最初のメッセージは要約、つまり user メッセージでなければなりません"
    ),
    "{name}: the input list was changed; build a new list instead": (
        "{name}: 入力のリストが変更されました。代わりに新しいリストを作ってください"
    ),
    "{name}: the message must be a user message": "{name}: メッセージは user メッセージでなければなりません",
    "{name}: the message must name the transcript file, so the model can read it later": (
        "{name}: モデルが後で読めるように、メッセージはトランスクリプトのファイル名を示さなければなりません"
    ),
    "{name}: the model was never asked for a summary": "{name}: モデルに一度も要約を求めていません",
    "{name}: the new list breaks the strict form: {exc}": (
        "{name}: 新しいリストが厳格な形式を破っています: {exc}"
    ),
    (
        "{name}: the newest assistant message ({last}) is not in the tail unchanged; with extended "
        "thinking its thinking blocks must go back complete"
    ): (
        "{name}: 最新の assistant メッセージ（{last}）が末尾にそのまま入っていません。"
        "拡張思考では、その thinking ブロックを完全な形で送り返さなければなりません"
    ),
    "{name}: the request must carry the whole history, unchanged, before the prompt": (
        "{name}: リクエストには、プロンプトの前に履歴全体をそのまま入れなければなりません"
    ),
    "{name}: the request's last block must be the summary prompt, starting {NO_TOOLS_HEAD}": (
        "{name}: リクエストの最後のブロックは、{NO_TOOLS_HEAD} で始まる要約プロンプトでなければなりません"
    ),
    "{name}: the result breaks the strict form: {exc}": "{name}: 結果が厳格な形式を破っています: {exc}",
    "{name}: the summary request breaks the strict form: {exc}": (
        "{name}: 要約のリクエストが厳格な形式を破っています: {exc}"
    ),
    "{name}: the summary was asked for before the transcript was on disk; write it first": (
        "{name}: トランスクリプトがディスクに書かれる前に要約を求めました。先に書き出してください"
    ),
    "{name}: the summary was asked for before the whole list was on disk": (
        "{name}: リスト全体がディスクに書かれる前に要約を求めました"
    ),
    (
        "{name}: the tail starts with a {value} message; start it at an assistant message, or its "
        "tool_result loses its tool_use"
    ): (
        "{name}: 末尾が {value} メッセージから始まっています。assistant "
        "メッセージから始めてください。そうしないと tool_result が対応する tool_use を失います"
    ),
    "{name}: the text inside the answer's <summary> tags is not in the message": (
        "{name}: 応答の <summary> タグの中のテキストがメッセージに入っていません"
    ),
    "{name}: {before} -> {after} tokens, {value} fewer; 70% is the goal": (
        "{name}: {before} -> {after} トークン、{value} の削減です。目標は 70% です"
    ),
    "{name}: {n} file:line references lost, the first {lost}": (
        "{name}: file:line の参照が {n} 個失われました。最初のものは {lost}"
    ),
    "{name}: {size} tokens before, {after} after; nothing was saved": (
        "{name}: 前が {size} トークン、後が {after} トークンで、何も節約できていません"
    ),
    "{newest} changed on disk after the agent read it, and was restored anyway": (
        "{newest} はエージェントが読んだあとディスク上で変わったのに、そのまま復元されました"
    ),
    "{newest} was deleted after the agent read it, and restoring raised {exc}; skip it": (
        "{newest} はエージェントが読んだあと削除され、復元で {exc} が送出されました。飛ばしてください"
    ),
    "{newest} was deleted after the agent read it, and was restored anyway": (
        "{newest} はエージェントが読んだあと削除されたのに、そのまま復元されました"
    ),
    (
        "{what} ({n} messages sent, API counted {tokens}; {n1} now, method={method}): expected {want}, "
        "got {got}"
    ): (
        "{what}（送信したメッセージ {n} 個、API の数は {tokens}。いまは {n1} 個、"
        "method={method}）: 期待は {want}、返り値は {got}"
    ),
    "{what} {message}: returned {got}, but {verdict}": "{what} {message}: 返り値は {got} ですが、{verdict}",
    "{what}: a request of 0 input tokens read nothing from the cache: 0.0": (
        "{what}: 入力トークンが 0 のリクエストは、キャッシュから何も読んでいません: 0.0"
    ),
    (
        "{what}: expected {want} (cache reads / all input tokens, where all = input + cache writes + "
        "cache reads), got {got}{hint}"
    ): (
        "{what}: 期待は {want}（キャッシュ読み取り / すべての入力トークン。すべて = 入力 + "
        "キャッシュ書き込み + キャッシュ読み取り）、返り値は {got}{hint}"
    ),
    (
        "{what}: the usage is {kind}, and your function raised {error}: {exc}; a cache field may be "
        "missing or None, which counts as 0"
    ): (
        "{what}: usage は {kind} で、関数が {error} を送出しました: {exc}。"
        "キャッシュのフィールドはないことも None のこともあり、その場合は 0 と数えます"
    ),
    "{where}: an estimate of {got} can really be {value} tokens, more than the {room} that fit": (
        "{where}: {got} という見積もりは実際には {value} トークンになりえて、収まる {room} を超えます"
    ),
    "{where}: block {i} is not a text block": "{where}: ブロック {i} がテキストブロックではありません",
    "{where}: block {i}'s first line names no file the agent read: {first}": (
        "{where}: ブロック {i} の 1 行目が、エージェントが読んだファイルを示していません: {first}"
    ),
    "{where}: no room at all, expected 0, got {got}": (
        "{where}: 空きがまったくないので期待は 0、返り値は {got}"
    ),
    "{where}: returned {kind}, expected a list of blocks": (
        "{where}: {kind} を返しました。ブロックのリストを返してください"
    ),
    # compaction.course.own_sessions: chapter 00's first cell
    "your newest Claude Code session, of {n} in ~/.claude/projects: {name}": (
        "~/.claude/projects にある {n} 件のうち、いちばん新しい Claude Code のセッション: {name}"
    ),
    "the newest session of {n} in the folder you named: {name}": (
        "指定したフォルダーにある {n} 件のうち、いちばん新しいセッション: {name}"
    ),
    "no session of yours was read; the shared real session instead: {name}": (
        "自分のセッションは読み込みませんでした。代わりに共有の本物のセッション: {name}"
    ),
    "no session of yours was read; the course's own session instead: {name}": (
        "自分のセッションは読み込みませんでした。代わりにコース自身のセッション: {name}"
    ),
    (
        "{format}: {messages} messages, {calls} model calls; replayed in a window of {window} tokens (a third"
        " of the session)"
    ): (
        "{format}: {messages} メッセージ、"
        "モデル呼び出し {calls} 回。{window} トークンのウィンドウ（セッションの"
        " 3 分の 1）でリプレイしました"
    ),
    "refused: {why}": "拒否: {why}",
    "over the window from turn {turn}": "ターン {turn} からウィンドウを超える",
    "{n} turns": "{n} ターン",
    " (in a context the API would refuse)": "（API が拒否するコンテキストの中）",
    ("{strategy:<9} {ending}; largest request {peak} tokens; layers fired: {fired}; probes kept: {kept}"): (
        "{strategy:<9} {ending}。最大のリクエスト {peak} トークン。発動した層: {fired}。"
        "残ったプローブ: {kept}"
    ),
    # compaction.course.render: the rendered edition's index and the bar of each page
    "Context compaction, layer by layer": "コンテキストのコンパクションを層ごとに",
    "Contents": "目次",
    "chapter": "章",
    "exercise": "演習",
    "solution": "解答",
    (
        "Every chapter, exercise and solution with the outputs saved in the repository; each widget shows"
        " the state it was saved in (its buttons need a running kernel). To run the cells, clone the"
        " repository and run make lab."
    ): (
        "各章・演習・解答を、リポジトリに保存された出力のまま載せています。"
        "ウィジェットは保存されたときの状態を"
        "表示します（ボタンを動かすには実行中のカーネルが必要です）"
        "。セルを実行するには、リポジトリをクローンして"
        " make lab を実行してください。"
    ),
    "keep {n}": "keep は {n}",
    "keep left out: {n}, the default": "keep は省略（既定値の {n}）",
    "tool inputs cleared": "ツール入力もクリア",
    "inputs of {tools} cleared, the others kept": "{tools} の入力はクリア、ほかは残す",
    "tool inputs kept (clear_tool_inputs not set)": "ツール入力は残る（clear_tool_inputs の指定なし）",
    "tool inputs kept (clear_tool_inputs set to {value!r})": (
        "ツール入力は残る（clear_tool_inputs は {value!r}）"
    ),
    "{kept}, {cleared}": "{kept}、{cleared}",
    "the uses of {tools} never cleared (exclude_tools)": "{tools} の呼び出しはクリアしない（exclude_tools）",
    "an integer (a whole number)": "整数",
    "{n} tool uses": "ツール呼び出し {n} 回",
    "{n:,} input tokens": "入力 {n:,} トークン",
    (
        "the API refused the request at call {call}, so the session never ran: {field} is {value!r}, and the"
        " API wants {wants}"
    ): (
        "API が呼び出し {call} のリクエストを拒否したため、セッションは実行されませんでした。"
        "{field} は {value!r} ですが、API が求めるのは{wants}です"
    ),
    "the session ended early at call {call}: {message}": (
        "セッションは呼び出し {call} で途中で終わりました: {message}"
    ),
    (
        "the session was refused at call {call}: the context grew past the {window:,}-token window"
        " ({tokens:,}"
        " tokens) before the trigger ({trigger}) was reached, and nothing had been cleared; a trigger the"
        " context reaches sooner clears in time"
    ): (
        "セッションは呼び出し {call} で拒否されました。トリガー（{trigger}）に届く前にコンテキストが "
        "{window:,} トークンのウィンドウを超え（{tokens:,} トークン）、それまで何もクリアされていません"
        "でした。コンテキストがもっと早く届くトリガーなら、間に合うようにクリアされます"
    ),
    (
        "the session was refused at call {call}: a request of {tokens:,} tokens outgrew the {window:,}-token"
        " window although clearings ran; what they keep ({kept}) is too much"
    ): (
        "セッションは呼び出し {call} で拒否されました。クリアは行われましたが、{tokens:,} トークンの"
        "リクエストが {window:,} トークンのウィンドウを超えました。クリアで残るもの（{kept}）が多すぎます"
    ),
    (
        "what a clearing keeps, {kept}, is still over it: fewer results kept, or their tool inputs cleared"
        " too,"
        " makes room; a clearing skipped for clear_at_least, or a trigger counted in tool uses that comes"
        " late,"
        " lets it grow the same way"
    ): (
        "クリアしても {kept} が残り、まだそれを超えています。残す結果を減らすか、ツール入力もクリアすれ"
        "ば余地ができます。clear_at_least のためにクリアが見送られたときや、ツール呼び出しの回数で数え"
        "るトリガーが遅いときも、同じように大きくなります"
    ),
    (
        "exclude_tools keeps every use of {tools} whole, and they pile up call after call: exclude fewer"
        " tools"
        " (each request keeps {kept})"
    ): (
        "exclude_tools によって {tools} の呼び出しはすべてそのまま残り、呼び出しのたびに積み上がります。"
        "除外するツールを減らしてください（各リクエストに残るもの: {kept}）"
    ),
    (
        "call {call} sent {peak:,} input tokens: with max_tokens {answer:,} its answer had {left:,} of the"
        " {window:,}-token window; every request must stay at most {room:,} ({why})"
    ): (
        "呼び出し {call} は入力 {peak:,} トークンを送りました。max_tokens {answer:,} に対し、応答に"
        "残ったのは {window:,} トークンのウィンドウのうち {left:,} です。どのリクエストも {room:,} 以下に"
        "収める必要があります（{why}）"
    ),
    (" (an option of the course's offline server, which the real API does not have)"): (
        "（コースのオフラインサーバー独自のオプションで、実際の API にはありません）"
    ),
    (
        "{name} is not a field of the edit{invented}: the SDK's BetaClearToolUses20250919EditPa"
        "ram has {fields}"
    ): (
        "{name} は編集のフィールドではありません{invented}。SDK の BetaClearToolUses20250919Edi"
        "tParam にあるのは {fields} です"
    ),
    (
        "the session ended early at call {call}: the edit has no trigger, and nothing was clear"
        "ed before a request outgrew the {window:,}-token window; give a trigger"
    ): (
        "セッションは呼び出し {call} で途中で終わりました。編集にトリガーがなく、リクエストが {"
        "window:,} トークンのウィンドウを超えるまで何もクリアされませんでした。トリガーを指定し"
        "てください"
    ),
    (
        "input cost {cost:,} base-price tokens, budget {budget:,}: {sent:,} tokens sent, {writt"
        "en:,} of them written to the cache (1.25x) on {breaks} cache breaks; every request ove"
        "r the trigger sends what the edit keeps ({kept}): fewer results kept, or their tool in"
        "puts cleared too, sends less on every call"
    ): (
        "入力コストは基本価格で {cost:,} トークン、予算は {budget:,}。送信 {sent:,} トークンの"
        "うち {written:,} トークンが {breaks} 回のキャッシュ破棄でキャッシュに書き込まれました"
        "（1.25 倍）。トリガーを超えたリクエストは、編集が残すもの（{kept}）を毎回送ります。残"
        "す結果を減らすか、ツール入力もクリアすれば、毎回の送信が減ります"
    ),
    (
        "clearing starts only when the context grows beyond the trigger: {n} tool uses is not m"
        "ore than {trigger}, so nothing is cleared"
    ): (
        "クリアが始まるのはコンテキストがトリガーを超えたときだけです。ツール呼び出し {n} 回は "
        "{trigger} を超えていないので、何もクリアされません"
    ),
    (
        "keep {keep} retains the newest {keep} tool uses, and there are only {n}: none is older, so nothing"
        " is"
        " cleared (a count of cleared tool uses is never below 0)"
    ): (
        "keep {keep} は最新のツール呼び出し {keep} 回を残します。呼び出しは {n} 回しかないので、それより"
        "古いものはなく、何もクリアされません（クリアされた回数が 0 を下回ることはありません）"
    ),
    (
        "past the trigger ({n} > {trigger}) every request clears all but the newest {keep} tool uses,"
        " whatever"
        " an earlier request cleared: {n} - {keep} = {older}"
    ): (
        "トリガーを超えると（{n} > {trigger}）、前のリクエストが何をクリアしたかにかかわらず、"
        "リクエストごとに最新の {keep} 回を除くツール呼び出しがすべてクリアされます: {n} - {keep} = {older}"
    ),
    ("the uses of exclude_tools are never cleared: {spared} of those {older} are {tools}, so {left}"): (
        "exclude_tools のツール呼び出しはクリアされません。その {older} 回のうち {spared} 回は {tools} "
        "なので {left}"
    ),
    (
        "clearing those {left} removes about {removed:,} tokens, {than} clear_at_least {least:,}, so"
        " {verdict}"
    ): (
        "その {left} 回をクリアすると約 {removed:,} トークン減り、これは clear_at_least {least:,} {than}"
        "ので、{verdict}"
    ),
    "{lead}. The rest of the count: {rest}": "{lead}。数え方の残り: {rest}",
    ", clear_at_least {n:,} tokens": "、clear_at_least {n:,} トークン",
    "{tools} in turn": "{tools} を交互に",
    (
        "{n} tool uses ({tools}), trigger {trigger} tool uses, keep {keep}{excluded}{least}: the server"
        " clears"
        " {want}, not {got}. The rule broken (the course's reading of the documented behaviour): {rule}"
    ): (
        "ツール呼び出し {n} 回（{tools}）、トリガー {trigger} 回、keep {keep}{excluded}{least}: "
        "サーバーがクリアするのは {want} で、{got} ではありません。破った規則（ドキュメントの挙動を"
        "このコースが読んだもの）: {rule}"
    ),
    "the text of every user turn, in order": "ユーザーのターンのテキストをすべて、順に",
    "each file once, in the order of its first change": "各ファイルを 1 回ずつ、最初に変更した順に",
    "expected a list of {n} strings, got {kind} {value}": (
        "{n} 個の文字列のリストのはずが、{kind} {value} でした"
    ),
    "{n} extra, first {first}": "{n} 個多い（最初は {first}）",
    "{n} missing, first {first}": "{n} 個足りない（最初は {first}）",
    "{item} is listed {times} times ({n} items, {expected} expected): {rule}": (
        "{item} が {times} 回入っています（{n} 個、正しくは {expected} 個）: {rule}"
    ),
    "at {at} expected {want}, got {got}: {rule}": "位置 {at} は {want} のはずが {got} でした: {rule}",
    "the end": "末尾",
    "at least": "以上な",
    "fewer than": "より少ない",
    "they are cleared": "クリアされます",
    "the context is not modified": "コンテキストは変更されません",
}

# The hints of the exercises of chapters 01-18 (``# Hint:`` in a solution), for the ja edition's exercises:
# ``compaction.course.exercises`` writes the Japanese hint into a ja exercise's stub; a hint with no entry
# stays as it is. English hint -> Japanese hint.
HINTS: dict[str, str] = {
    # chapter 18
    "write a new file under a random name (os.open, O_CREAT | O_EXCL), then os.replace it onto the note": (
        "ランダムな名前で新しいファイルを書き（os.open、O_CREAT | O_EXCL）、"
        "それを os.replace でメモの名前に移す"
    ),
    "the heading's line and the newlines around it; while that occurs twice, widen it by the next line": (
        "見出しの行とその前後の改行から始め、それが 2 回出てくるうちは次の行を足して広げる"
    ),
    "build the output list as you go; look at its last message before appending": (
        "出力のリストを作りながら進み、追加する前にその最後のメッセージを見る"
    ),
    "walk the messages from the end by index, so that an insertion never moves one still to visit": (
        "メッセージを末尾からインデックスでたどる。そうすれば挿入してもまだ見ていないものの位置は動かない"
    ),
    "read each of the three fields with a default of 0, whatever the kind of object; then divide": (
        "オブジェクトの種類にかかわらず、3 つのフィールドをそれぞれデフォルト 0 で読んでから割る"
    ),
    "stay in integers: multiply by 100 before dividing by (100 + underestimate_pct)": (
        "整数のまま計算する。(100 + underestimate_pct) で割る前に 100 を掛ける"
    ),
    "replace this line with your guess, a number, before you run limit_for": (
        "limit_for を実行する前に、この行を予想した数値に書き換える"
    ),
    "slice output[:half] and output[len(output) - half:]; count what lies between them": (
        "output[:half] と output[len(output) - half:] を切り出し、その間にある文字数を数える"
    ),
    "compute the room in tokens first; math.floor turns the product into whole characters": (
        "まず空きをトークンで求める。積を整数の文字数にするのは math.floor"
    ),
    "replace this line with your guess, a number of characters, before you run max_chars_for": (
        "max_chars_for を実行する前に、この行を予想した文字数に書き換える"
    ),
    "walk the tail's start from the end towards the head, adding each message's tokens as you go": (
        "末尾の開始位置を最後から先頭に向かって動かし、進みながら各メッセージのトークン数を足す"
    ),
    "find the request's index first; after the cuts, ask whether head <= index < tail": (
        "まず依頼のインデックスを見つけ、切れ目を決めたあとで head <= index < tail かどうかを調べる"
    ),
    "first collect the paths being edited; then it is the chapter's loop with one more reason to skip": (
        "まず編集中のパスを集める。あとは章のループに、飛ばす理由を 1 つ加えるだけ"
    ),
    "request r clears the results with index below 2r - k; which of them did request r - 1 send whole?": (
        "リクエスト r はインデックスが 2r - k より小さい結果をクリアする。"
        "そのうちリクエスト r - 1 がまるごと送ったのはどれか"
    ),
    "replace this line with your guess: micro on every call costs this share more (negative: less)": (
        "この行を予想に書き換える: 毎回 micro をかけるとこの割合だけ高くなる（負なら安くなる）"
    ),
    "count the shared leading messages of each request and the one before; price the two parts": (
        "各リクエストと直前のリクエストで共通する先頭のメッセージを数え、2 つの部分に値段を付ける"
    ),
    "a dict from layer name to a one-argument function makes the three loops one": (
        "層の名前から引数 1 つの関数への dict を作れば、3 つのループが 1 つになる"
    ),
    'find "<analysis>", then the next "</analysis>" after it; repeat until none is left': (
        '"<analysis>" を見つけ、その後ろで次の "</analysis>" を見つける。なくなるまで繰り返す'
    ),
    'look at every block\'s "type" first; only then join the text blocks': (
        'まずすべてのブロックの "type" を見て、それからテキストブロックをつなげる'
    ),
    "keep what is left of the budget; skip with continue, stop with break": (
        "予算の残りを覚えておく。飛ばすなら continue、止めるなら break"
    ),
    "one counter; look at event.kind, and return event.turn when the counter reaches the limit": (
        "カウンターは 1 つ。event.kind を見て、カウンターが上限に達したら event.turn を返す"
    ),
    "check the exception class and status first; then one regular expression per wording": (
        "まず例外のクラスとステータスを確かめ、それから文言ごとに正規表現を 1 つ使う"
    ),
    "the longest tail starts earliest; try the assistant messages from index 1 on": (
        "最長の末尾は最も早く始まる。インデックス 1 以降の assistant メッセージを試す"
    ),
    "sort the sizes from the largest; the answer at rank allowed_over is the one that must fit": (
        "サイズを大きい順に並べる。順位 allowed_over の答えが収まらなければならないもの"
    ),
    "walk the lines; collect frames per file until a line that is not a frame or source line": (
        "行をたどり、フレームでもソース行でもない行が来るまで、ファイルごとにフレームを集める"
    ),
    "keep the open Phase and each command's last status; a rule that ends the phase gives the next one": (
        "開いている Phase と各コマンドの最後の状態を覚えておく。"
        "フェーズを終わらせるルールが次のフェーズを返す"
    ),
    "a phase is recorded only when it has started and end is past its start": (
        "フェーズが記録されるのは、始まっていて、end がその開始位置より後ろにあるときだけ"
    ),
    (
        "the trigger as high as the answer's room allows; keep and clear_tool_inputs set what each request"
        " sends"
    ): (
        "トリガーは応答の余地が許すかぎり高くする。"
        "各リクエストが送るものは keep と clear_tool_inputs で決まる"
    ),
    "every tool use in order; past the trigger, all but the newest keep are candidates": (
        "ツール呼び出しを順にすべて見る。トリガーを超えたら、最新の keep 個を除くものがクリアの候補になる"
    ),
    ("blocks(message) turns a string content into one text block"): (
        "blocks(message) は文字列の content をテキストブロック 1 つにして返す"
    ),
    ("one dict per probe; copy each evidence string from the output above"): (
        "プローブ 1 つにつき dict を 1 つ。根拠（evidence）の文字列はそれぞれ上の出力から写す"
    ),
    "probe id -> list of the strategies that lose it": "プローブの id -> それを失う戦略のリスト",
    (
        "replace(layer, setting=value) changes one setting; which lines of a cleared result hel"
        "d the lost facts?"
    ): (
        "replace(layer, setting=value) で設定を 1 つだけ変えられる。失われた事実は、クリアされ"
        "た結果のどの行にあったか"
    ),
    ('re.findall(r"<tool_call>(.*?)</tool_call>", value, re.S) finds the calls; re.sub removes them'): (
        're.findall(r"<tool_call>(.*?)</tool_call>", value, re.S) で呼び出しを見つけ、re.sub で取り除く'
    ),
    ("zip(passes, passes[1:]) walks each pass with the list before it"): (
        "zip(passes, passes[1:]) で、各処理をその直前のリストと組にしてたどれる"
    ),
    ("go through the requests one at a time and apply the three rules above"): (
        "リクエストを 1 つずつ見て、上の 3 つの規則を当てはめる"
    ),
    ("find the last line with a count, then read each count by its word, not by its position"): (
        "件数のある最後の行を見つけ、各件数を位置ではなく、その後ろの語（passed、failed）で読む"
    ),
    (
        "turn every number into a Decimal without separators, then compare it rounded to the la"
        "ter one's places"
    ): ("数値はすべて区切りを外して Decimal にし、後から書かれた数値の桁数に丸めてから比べる"),
}
