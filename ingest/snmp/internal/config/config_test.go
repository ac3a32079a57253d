package config

import (
	"strings"
	"testing"
	"time"
)

func TestDefaultsAndOverrides(t *testing.T) {
	c, err := Parse("t.json", []byte(`{"targets": [
	  {"address": "192.0.2.1", "version": "2c", "community": "public", "links": [{"id": "a", "if_index": 3}]},
	  {"device": "r2", "address": "[2001:db8::2]:1161", "version": "3", "interval": "30s", "retries": 0,
	   "v3": {"user": "u", "auth_protocol": "sha", "auth_passphrase": "12345678", "priv_protocol": "aes", "priv_passphrase": "abcdefgh"},
	   "links": [{"id": "b", "if_name": "et-0/0/1"}]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	a, b := &c.Targets[0], &c.Targets[1]
	if a.Host != "192.0.2.1" || a.Port != 161 || a.Device != "192.0.2.1" {
		t.Errorf("target 0: host %q port %d device %q; want 192.0.2.1, 161 and the host as device", a.Host, a.Port, a.Device)
	}
	if a.EffectiveInterval(c) != 10*time.Second || a.EffectiveTimeout(c) != 2*time.Second || a.EffectiveRetries(c) != 1 {
		t.Errorf("defaults: %v %v %d", a.EffectiveInterval(c), a.EffectiveTimeout(c), a.EffectiveRetries(c))
	}
	if b.Host != "2001:db8::2" || b.Port != 1161 || b.EffectiveInterval(c) != 30*time.Second || b.EffectiveRetries(c) != 0 {
		t.Errorf("target 1: %q %d %v %d", b.Host, b.Port, b.EffectiveInterval(c), b.EffectiveRetries(c))
	}
	if b.V3.Level != "authPriv" || b.V3.AuthProtocol != "SHA" || b.V3.PrivProtocol != "AES" {
		t.Errorf("v3 defaults/normalisation: %+v", b.V3)
	}
}

func TestSecretsFromEnvironment(t *testing.T) {
	t.Setenv("CHEETAH_TEST_COMMUNITY", "s3cret")
	c, err := Parse("t.json", []byte(`{"targets": [{"address": "h", "version": "2c", "community": "env:CHEETAH_TEST_COMMUNITY", "links": [{"id": "a", "if_index": 1}]}]}`))
	if err != nil || c.Targets[0].Community != "s3cret" {
		t.Fatalf("community from env: %v %+v", err, c)
	}
}

// Each bad file is refused with a message naming the place and the fix.
func TestErrorsNameTheProblem(t *testing.T) {
	link := `"links": [{"id": "a", "if_index": 1}]`
	for _, tc := range []struct{ json, want string }{
		{`{"targets": []}`, "no targets"},
		{`{"targets": [{"address": "h", "version": "2c", "community": "c", ` + link + `}], "intervall": "5s"}`, `unknown field "intervall"`},
		{`{"targets": [{"address": "h", "version": "1", "community": "c", ` + link + `}]}`, `version "1": use "2c" or "3"`},
		{`{"targets": [{"address": "h", "version": "2c", ` + link + `}]}`, `needs a "community"`},
		{`{"targets": [{"address": "h:0", "version": "2c", "community": "c", ` + link + `}]}`, `port "0" is not 1..65535`},
		{`{"targets": [{"device": "r1", "address": "h", "version": "2c", "community": "c", "links": [{"id": "a"}]}]}`, `targets[0] (r1): links[0] (a): give exactly one of "if_index"`},
		{`{"targets": [{"address": "h", "version": "2c", "community": "c", "links": [{"id": "a", "if_index": 1}, {"id": "a", "if_index": 2}]}]}`, `link id "a" is also used`},
		{`{"interval": "1s", "timeout": "600ms", "targets": [{"address": "h", "version": "2c", "community": "c", ` + link + `}]}`, "must be shorter than the interval"},
		{`{"interval": "ten", "targets": []}`, `want a duration such as "10s"`},
		{`{"targets": [{"address": "h", "version": "3", "v3": {"user": "u", "auth_protocol": "SHA", "auth_passphrase": "short", "priv_protocol": "AES", "priv_passphrase": "12345678"}, ` + link + `}]}`, "auth_passphrase: at least 8 characters"},
		{`{"targets": [{"address": "h", "version": "3", "v3": {"user": "u", "auth_protocol": "SHA1", "auth_passphrase": "12345678", "priv_protocol": "AES", "priv_passphrase": "12345678"}, ` + link + `}]}`, `auth_protocol "SHA1": use one of MD5, SHA`},
		{`{"targets": [{"address": "h", "version": "2c", "community": "env:CHEETAH_NOT_SET_ANYWHERE", ` + link + `}]}`, "environment variable CHEETAH_NOT_SET_ANYWHERE"},
		{"{\n\"targets\": [,]}", "line 2: not valid JSON"},
	} {
		_, err := Parse("bad.json", []byte(tc.json))
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "config bad.json: ") {
			t.Errorf("%s\n  error %v\n  want it to name the file and contain %q", tc.json, err, tc.want)
		}
	}
}
