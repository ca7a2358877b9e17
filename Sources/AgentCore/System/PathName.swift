/// File paths as plain text: joining a directory and a name, the last component, the parent.
/// The results are those of `NSString`'s path methods on Linux (`appendingPathComponent`,
/// `lastPathComponent`, `deletingLastPathComponent`), which the daemon used before it dropped
/// Foundation. No file system access, no `~` expansion, no `..` resolution. Pure functions; any thread.
package enum PathName {
    /// `directory/name`, e.g. `/var/lib/wcs-agent` + `token.json`; no slash added when
    /// `directory` ends in one; either part alone when the other is empty. Nothing else is changed.
    package static func joined(_ directory: String, _ name: String) -> String {
        if name.isEmpty { return directory }
        if directory.isEmpty { return name }
        return directory.hasSuffix("/") ? directory + name : directory + "/" + name
    }

    /// The last component: `b` of `/a/b` and of `/a/b/`, `/` of `/`, `a` of `a`, empty of empty.
    package static func lastComponent(_ path: String) -> String {
        let tidied = tidy(path)
        if tidied == "/" { return tidied }
        guard let slash = tidied.lastIndex(of: "/") else { return tidied }
        return String(tidied[tidied.index(after: slash)...])
    }

    /// The path without its last component: `/a` of `/a/b`, `/` of `/a` and of `/`, empty of `a`.
    package static func parent(_ path: String) -> String {
        let tidied = tidy(path)
        guard let slash = tidied.lastIndex(of: "/") else { return "" }
        if slash == tidied.startIndex { return "/" }
        return String(tidied[..<slash])
    }

    /// Runs of `/` made one, and a trailing `/` dropped unless the path is the root.
    private static func tidy(_ path: String) -> String {
        var result = ""
        result.reserveCapacity(path.utf8.count)
        var previousWasSlash = false
        for character in path {
            let isSlash = character == "/"
            if !(isSlash && previousWasSlash) { result.append(character) }
            previousWasSlash = isSlash
        }
        if result.count > 1, result.last == "/" { result.removeLast() }
        return result
    }
}
