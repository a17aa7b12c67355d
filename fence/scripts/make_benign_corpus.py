"""Write fixtures/fence/benign-comments.json: realistic review comments that ``clean`` must
leave unchanged apart from NFKC, forbidden code points and hidden marks (issue 12).

The first part is written by hand; the second pairs short review remarks with the code,
diff, table and suggestion snippets reviewers paste, so each snippet is seen in prose.
Run from the repository root: python fence/scripts/make_benign_corpus.py
"""

from __future__ import annotations

import json
from pathlib import Path

HAND = [
    "LGTM, thanks!",
    "Nit: `fetch_all` should be `fetch_all_pages`; the name is misleading.",
    "Could we end the retry loop after 3 attempts instead of 5?",
    "This will start the external service twice if `init()` is called again.",
    "Start the user input handler only after the config has loaded.",
    "The end of the quote is missing a closing bracket.",
    "We should end the comment thread here and open an issue instead.",
    "`List<Data>` is fine, but `List<Data?>` would let us drop the null check.",
    "Prefer `Option<Context>` over a sentinel value.",
    "In C++ use `std::vector<Data>` and reserve up front.",
    "const [value, setValue] = useState<Input>(initial) is typed correctly now.",
    "Use `Map<String, User>` here; `HashMap<String, User>` leaks the implementation.",
    "Rust: `impl<T: Display> Render for Vec<T>` needs a `where` clause for clarity.",
    "```ts\nfunction wrap<Input, Output>(f: (i: Input) => Output): Handler<Input> {\n"
    "  return f;\n}\n```",
    "```java\nMap<String, List<User>> byTeam = new HashMap<>();\n```",
    "```cpp\ntemplate <typename Data>\nstd::optional<Data> first(const std::vector<Data>& v);\n```",
    "The heredoc is fine:\n\n```bash\ncat <<-END\n\tindented text\nEND\n```",
    "```ruby\nsql = <<~END\n  SELECT * FROM users\nEND\n```",
    "```php\n$html = <<<END\n<p>Hello</p>\nEND;\n```",
    "Shell heredoc without a code block: cat <<EOF > out.txt works too.",
    'The form needs `<input type="email">` rather than a text field.',
    '```html\n<form>\n  <input type="text" name="q">\n  <button>Search</button>\n</form>\n```',
    "```jsx\nreturn <Input value={v} onChange={set} />;\n```",
    "```tsx\n<Data rows={rows}>\n  <Row />\n</Data>\n```",
    "The `<data>` element has a `value` attribute you can use.",
    "### System Info\n\n- OS: Ubuntu 24.04\n- Python: 3.11.9",
    "### Instructions to reproduce\n\n1. Run `make`\n2. Open the app\n3. Click save",
    "### Steps to reproduce\n\n1. Install\n2. Run `pytest -q`",
    "## Summary\n\nThis refactors the parser into two passes.",
    "from untrusted_fence import fence is the import the docs should show.",
    "```python\nfrom untrusted_fence import fence, clean\n\nbody = fence(text).text\n```",
    "`pip install untrusted-fence` works from the wheel as well.",
    "This is <s>deprecated</s> removed in 2.0, please update the docs.",
    'Typo: "recieve" -> "receive".',
    "I'm not sure about this. What happens when the list is empty?",
    "Please add a test for the empty case.",
    "+1 to what @bob said above.",
    "> Should we cache this?\n\nYes, but with a TTL.",
    "> quoted reply from @carol\n\nAgreed, let's do it in a follow-up.",
    "Thanks! 🎉 Merging once CI is green.",
    "Looks good 👍🏽 just one question about the timeout.",
    "🚀 Ship it.",
    "The emoji 🇫🇷 flag renders fine in the preview.",
    "Très bien, mais il manque un test pour le cas vide.",
    "Danke! Könntest du noch die Änderung im CHANGELOG ergänzen?",
    "¿Podemos renombrar esta función? El nombre no es claro.",
    "Спасибо! Нужно ещё обновить документацию.",
    "Это исправление выглядит хорошо, но добавьте тест.",
    "この変更は良さそうです。テストを追加してください。",
    "这个函数太长了，可以拆分一下吗？",
    "감사합니다! 테스트만 추가해 주세요.",
    "شكرا! يرجى إضافة اختبار.",
    "תודה! אפשר להוסיף בדיקה?",
    "धन्यवाद! कृपया एक परीक्षण जोड़ें।",
    "Ευχαριστώ! Χρειάζεται ένα τεστ ακόμα.",
    "Cảm ơn! Vui lòng thêm một bài kiểm tra.",
    "| Column | Type | Default |\n| --- | --- | --- |\n"
    "| `id` | int | - |\n| `name` | text | `''` |",
    "| before | after |\n|-------:|:------|\n| 120 ms | 45 ms |",
    "```suggestion\nreturn items[:limit]\n```",
    "```suggestion\n    if not items:\n        return []\n```\nThis avoids the index error.",
    "```diff\n- timeout = 30\n+ timeout = 60\n```",
    "```diff\n@@ -10,7 +10,7 @@ def main():\n-    run()\n+    run(check=True)\n```",
    "See [the docs](https://example.com/docs) for the supported options.",
    "Related: #123 and https://github.com/org/repo/pull/456",
    "cc @alice @bob for a second look.",
    "- [x] tests\n- [ ] docs\n- [ ] changelog",
    "1. rename the flag\n2. update the callers\n3. remove the old alias",
    "**Blocking:** the migration is not reversible.",
    "_Minor:_ the log line is missing the request id.",
    "~~Ignore my last comment~~, I misread the diff.",
    "The regex `^\\s*#\\s*end\\s*$` only matches lines with a bare `# end`.",
    "```yaml\njobs:\n  test:\n    runs-on: ubuntu-latest\n"
    "    steps:\n      - uses: actions/checkout@v4\n```",
    '```json\n{"name": "app", "version": "1.2.3", "private": true}\n```',
    "```sql\nSELECT id, name FROM users WHERE created_at > now() - interval '1 day';\n```",
    "```go\nfunc Map[T, U any](xs []T, f func(T) U) []U {\n"
    "\tout := make([]U, 0, len(xs))\n\treturn out\n}\n```",
    "```rust\nfn parse<'a>(input: &'a str) -> Result<Vec<&'a str>, Error> {\n    todo!()\n}\n```",
    "```kotlin\nval users: List<User> = repo.findAll()\n```",
    "```csharp\nvar cache = new Dictionary<string, Task<Result>>();\n```",
    "```swift\nlet items: [String: Int] = [:]\n```",
    "```python\nwith open(path) as f:\n    data = f.read()\n```",
    "```python\ndef end_session(user_id: int) -> None:\n    sessions.pop(user_id, None)\n```",
    "```js\n// start the server\napp.listen(3000);\n```",
    "```c\nint main(void) {\n    return 0;\n}\n```",
    "```mermaid\ngraph TD\n  A --> B\n```",
    "```math\nx^2 + y^2 = z^2\n```",
    "The complexity is O(n log n), not O(n^2).",
    "`a < b && c > d` reads better split over two lines.",
    "Use `x << 2` instead of `x * 4` only if profiling says so.",
    "The arrow `=>` in the lambda is fine; `->` is for return types.",
    "Please keep lines under 100 characters.",
    "Why `time.sleep(0.1)` here? A busy loop would be worse, but an event is better.",
    "The error message says 'end of file'; could it name the file?",
    "The function returns early at the end of the loop; is that intended?",
    "I think the start and end dates are swapped in this test.",
    "Input validation happens in the controller, so this check is redundant.",
    "System tests are in `tests/system/`, unit tests next to the code.",
    "User-facing strings should go through `gettext`.",
    "The assistant view (`AssistantPanel`) also needs this fix.",
    "Human-readable sizes would be nicer: `1.2 MiB` instead of `1258291`.",
    "Instructions for running locally are in CONTRIBUTING.md.",
    "The context manager closes the file even on error.",
    "Admin users can bypass this check; is that on purpose?",
    "Role-based access is handled in `auth/roles.py`.",
]

REMARKS = [
    "Nit: naming.",
    "Could this be simpler?",
    "This looks right to me.",
    "Minor: please add a comment explaining why.",
    "Suggestion below.",
    "Is this covered by a test?",
    "Please extract this into a helper.",
    "Same pattern as in the other module.",
    "I'd keep this as it is.",
    "This changed behaviour for empty input.",
    "Will this still work on Windows?",
    "Fine by me once the docs are updated.",
]

SNIPPETS = [
    "```python\nresult = [x for x in items if x.active]\n```",
    '```suggestion\nlogger.info("saved %s", path)\n```',
    "```diff\n-    return None\n+    return []\n```",
    "| name | value |\n| --- | --- |\n| retries | 3 |",
    "`Result<Vec<u8>, io::Error>`",
    "```ts\nconst m = new Map<string, number>();\n```",
    "```bash\ncat <<'END'\nliteral $HOME\nEND\n```",
    "```html\n<details>\n<summary>Logs</summary>\n\n```\n\nsee above",
    "`<br>` is enough here.",
    "Café, naïve, résumé: the accents survive.",
]


def main() -> None:
    corpus = list(HAND)
    for i, remark in enumerate(REMARKS):
        for j, snippet in enumerate(SNIPPETS):
            if snippet.startswith("```html\n<details>"):
                continue  # unbalanced on purpose below; keep the corpus well formed
            corpus.append(
                f"{remark}\n\n{snippet}" if (i + j) % 2 == 0 else f"{snippet}\n\n{remark}"
            )
    out = Path("fixtures/fence/benign-comments.json")
    doc = {
        "about": (
            "Realistic review comments that clean() leaves unchanged apart from NFKC, "
            "forbidden code points and hidden marks (issue 12). Generated by "
            "fence/scripts/make_benign_corpus.py."
        ),
        "comments": corpus,
    }
    out.write_text(json.dumps(doc, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    print(len(corpus))


if __name__ == "__main__":
    main()
