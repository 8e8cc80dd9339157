package install

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"strings"

	"github.com/corrosion/corrosion/agent/template"
)

// maxReleaseJSON bounds the GitHub API's answer.
const maxReleaseJSON = 8 << 20

// release is the part of GitHub's "latest release" answer used here.
type release struct {
	TagName string         `json:"tag_name"`
	Assets  []releaseAsset `json:"assets"`
}

type releaseAsset struct {
	Name        string `json:"name"`
	DownloadURL string `json:"browser_download_url"`
	Digest      string `json:"digest"` // "sha256:<hex>" when GitHub published one
}

// releaseSource runs a github_release step: find the repository's latest
// release and its asset, then download and place it as an http step, with
// GitHub's published digest as its SHA-256 when there is one.
func (in *Installer) releaseSource(ctx context.Context, job *Job, g *template.GitHubRelease) error {
	rel, err := in.latestRelease(ctx, g.Repo)
	if err != nil {
		return err
	}
	var asset *releaseAsset
	names := make([]string, 0, len(rel.Assets))
	for i := range rel.Assets {
		names = append(names, rel.Assets[i].Name)
		if rel.Assets[i].Name == g.Asset {
			asset = &rel.Assets[i]
		}
	}
	if asset == nil {
		return &Error{Code: CodeNoAsset, Msg: fmt.Sprintf("github release %s %s has no asset %q (it has: %s)",
			g.Repo, rel.TagName, g.Asset, strings.Join(names, ", "))}
	}
	u, err := url.Parse(asset.DownloadURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return &Error{Code: CodeDownload, Msg: fmt.Sprintf("github release %s: asset %q has no http download url", g.Repo, g.Asset)}
	}
	sum, _ := strings.CutPrefix(asset.Digest, "sha256:")
	if !strings.HasPrefix(asset.Digest, "sha256:") {
		sum = ""
	}
	job.say("github release %s %s: %s", g.Repo, rel.TagName, g.Asset)
	return in.fetch(ctx, job, fetchSpec{url: asset.DownloadURL, sha256: sum, name: g.Asset,
		extract: g.Extract, into: g.Into, overwrite: g.Overwrite})
}

// latestRelease asks the GitHub API for repo's latest release.
func (in *Installer) latestRelease(ctx context.Context, repo string) (release, error) {
	owner, name, ok := strings.Cut(repo, "/")
	if !ok || owner == "" || name == "" || strings.Contains(name, "/") {
		return release{}, &Error{Code: CodeDownload, Msg: fmt.Sprintf("github release: %q is not owner/name", repo)}
	}
	api := strings.TrimSuffix(in.githubAPI, "/") + "/repos/" + url.PathEscape(owner) + "/" + url.PathEscape(name) + "/releases/latest"
	resp, err := in.get(ctx, api, "application/vnd.github+json")
	if err != nil {
		return release{}, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxReleaseJSON+1))
	if err != nil {
		return release{}, &Error{Code: CodeDownload, Msg: fmt.Sprintf("github release %s: %v", repo, err), Err: err}
	}
	rel, err := parseRelease(data)
	if err != nil {
		return release{}, &Error{Code: CodeDownload, Msg: fmt.Sprintf("github release %s: %v", repo, err), Err: err}
	}
	return rel, nil
}

// parseRelease reads GitHub's answer: a JSON object with the release's
// tag and assets, at most maxReleaseJSON bytes, each asset named.
func parseRelease(data []byte) (release, error) {
	if len(data) > maxReleaseJSON {
		return release{}, fmt.Errorf("the answer is larger than %d bytes", maxReleaseJSON)
	}
	var rel release
	if err := json.Unmarshal(data, &rel); err != nil {
		return release{}, fmt.Errorf("the answer is not a release: %w", err)
	}
	for i, a := range rel.Assets {
		if a.Name == "" {
			return release{}, fmt.Errorf("the answer's asset %d has no name", i)
		}
	}
	return rel, nil
}
