module toolspec.invalid/third-party/boris

go 1.25.0

tool github.com/mjkoo/boris/cmd/boris

require (
	github.com/alecthomas/kong v1.14.0 // indirect
	github.com/bmatcuk/doublestar/v4 v4.10.0 // indirect
	github.com/google/jsonschema-go v0.4.2 // indirect
	github.com/mjkoo/boris v1.0.0 // indirect
	github.com/modelcontextprotocol/go-sdk v1.3.1 // indirect
	github.com/sabhiram/go-gitignore v0.0.0-20210923224102-525f6e181f06 // indirect
	github.com/segmentio/asm v1.1.3 // indirect
	github.com/segmentio/encoding v0.5.3 // indirect
	github.com/yosida95/uritemplate/v3 v3.0.2 // indirect
	golang.org/x/oauth2 v0.30.0 // indirect
	golang.org/x/sys v0.35.0 // indirect
)
