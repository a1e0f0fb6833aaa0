/** The SDK's version: the hub's release line, equal to package.json's (sdk/go/version_test.go checks both). */
export const VERSION = '0.1.0';
