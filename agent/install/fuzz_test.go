package install

import "testing"

// FuzzParseRelease: any answer of the GitHub API is a release or an error,
// never a panic; a release's assets all have names.
func FuzzParseRelease(f *testing.F) {
	for _, s := range []string{
		`{"tag_name":"v2.0.1","assets":[{"name":"Oxide.Rust-linux.zip","browser_download_url":"https://github.com/x/y/releases/download/v2/a.zip","digest":"sha256:00"}]}`,
		`{"tag_name":"v1","assets":[]}`,
		`{"assets":[{"name":""}]}`,
		`{"message":"Not Found","documentation_url":"https://docs.github.com"}`,
		`[]`, `null`, `{"assets":{}}`, `{"tag_name":1}`, "",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		rel, err := parseRelease(data)
		if err != nil {
			return
		}
		for _, a := range rel.Assets {
			if a.Name == "" {
				t.Fatalf("an asset without a name accepted: %+v", rel)
			}
		}
	})
}
