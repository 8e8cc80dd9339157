package agent

import (
	"errors"
	"strings"
	"testing"

	"github.com/corrosion/corrosion/agent/wire"
)

// FuzzProvisionRequests decodes any bytes as instance_create,
// instance_update and instance_delete requests and runs the checks that
// touch nothing (id, label, template, values): never a panic, and every
// refusal is a coded wire error that names its field.
func FuzzProvisionRequests(f *testing.F) {
	for _, seed := range []string{
		`{"func":"instance_create","id":"mt1","template":"minetest","values":{"SERVER_PORT":"30001"},"label":"Mine"}`,
		`{"func":"instance_create","id":"x","template_toml":"id = \"t\"\nname = \"T\"\ngame = \"generic\"\nversion = 1\n[run]\nexec = \"bin/x\"\n"}`,
		`{"func":"instance_create","id":"x","template_toml":"id = ["}`,
		`{"func":"instance_create","id":"host","template":"rust"}`,
		`{"func":"instance_create","id":"r1","template":"rust","values":{"RCON_PASSWORD":"p","NOPE":"1"}}`,
		`{"func":"instance_create","id":"v","template":"valheim","values":{"SERVER_PORT":"70000"}}`,
		`{"func":"instance_create","id":1,"values":[]}`,
		`{"func":"instance_update","id":"mt1","values":{"MAX_PLAYERS":"2"},"label":"bad\u0007"}`,
		`{"func":"instance_update","id":"mt1","label":null}`,
		`{"func":"instance_delete","id":"mt1","force":true,"purge":true}`,
		`{"func":"instance_delete","id":"mt1","force":"yes"}`,
		`[]`, `{"func":"instance_create"}`, "", "\x00",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		req, err := wire.DecodeRequest(data)
		if err != nil {
			return
		}
		var create wire.InstanceCreateRequest
		if req.Decode(&create) == nil {
			checkCreateFields(t, &create)
		}
		var update wire.InstanceUpdateRequest
		if req.Decode(&update) == nil && update.Label != nil {
			mustBeFieldErr(t, checkLabel(*update.Label), "label")
		}
		var del wire.InstanceDeleteRequest
		_ = req.Decode(&del)
	})
}

func checkCreateFields(t *testing.T, c *wire.InstanceCreateRequest) {
	mustBeFieldErr(t, checkLabel(c.Label), "label")
	if !wire.ValidInstanceID(c.ID) || len(c.TemplateTOML) > 64<<10 {
		return
	}
	tmpl, err := findTemplate(c.Template, c.TemplateTOML)
	if err != nil {
		mustBeFieldErr(t, err, "")
		return
	}
	_, err = renderSpec(&tmpl, c.Values)
	mustBeFieldErr(t, err, "")
}

// mustBeFieldErr: err is nil or a coded *wire.Error (with the field want
// when want is not empty).
func mustBeFieldErr(t *testing.T, err error, want string) {
	t.Helper()
	if err == nil {
		return
	}
	var we *wire.Error
	if !errors.As(err, &we) || we.Code == "" || strings.TrimSpace(we.Msg) == "" {
		t.Fatalf("refusal %v is not a coded wire error", err)
	}
	if want != "" && we.Field != want {
		t.Fatalf("refusal %v names field %q, want %q", err, we.Field, want)
	}
}
