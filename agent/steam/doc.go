// Package steam installs and updates Steam apps with Valve's steamcmd and
// reads what steamcmd leaves behind. It is a library for the agent's
// install, update_check and steam_update funcs:
//
//   - ParseVDF reads Valve's KeyValues text, strictly (a clear error for
//     bad input, never a panic or a hang); ParseManifest and Installed read
//     steamapps/appmanifest_<app>.acf (the installed build, and whether a
//     download is half-finished); ParseAppInfo reads app_info_print's dump
//     (each branch's current build).
//   - Runner runs steamcmd directly with its own exit code and a
//     wall-clock limit that kills its whole process group, streams its
//     lines, classifies the result into stable codes (Code*) and retries
//     what is worth retrying: Update (app_update, confirmed by re-reading
//     the manifest), AppInfo and UpdateCheck (installed vs available).
//
// docs/steam.md has the classification table and the retry rule. A beta
// password is never logged nor put in an error; steamcmd's lines are
// passed on with it masked.
package steam
