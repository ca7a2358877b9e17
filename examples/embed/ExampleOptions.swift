import Foundation

/// The example's command line. The SIP password comes from a file, never from argv.
struct ExampleOptions {
    var server = ""
    var login: String?
    var passwordFile: String?
    var domain: String?
    var tokenFile = "wcs-session.token"
    var caFile: String?
    var insecureTLS = false
    var register = true
    var seconds: Double?
    var verbose = false

    static let usage = """
        usage: wcs-session-example --server ws://HOST:8080 [--login 1001 --password-file FILE [--domain DOMAIN]]
                                   [--token-file FILE] [--ca-file PEM] [--insecure-tls] [--no-register]
                                   [--seconds N] [--verbose]
        Logs in (or resumes the session stored in --token-file, default ./wcs-session.token), prints
        session events, and on Ctrl-C closes the socket: the server keeps the session, the next run
        resumes it by token.
        """

    /// Parses `arguments` (without the program name).
    init(_ arguments: [String]) throws(ExampleError) {
        var rest = arguments[...]
        func value(_ flag: String) throws(ExampleError) -> String {
            guard let next = rest.popFirst(), !next.isEmpty else { throw ExampleError("\(flag) needs a value") }
            return next
        }
        while let flag = rest.popFirst() {
            switch flag {
            case "--server": server = try value(flag)
            case "--login": login = try value(flag)
            case "--password-file": passwordFile = try value(flag)
            case "--domain": domain = try value(flag)
            case "--token-file": tokenFile = try value(flag)
            case "--ca-file": caFile = try value(flag)
            case "--insecure-tls": insecureTLS = true
            case "--no-register": register = false
            case "--verbose": verbose = true
            case "--seconds":
                let text = try value(flag)
                guard let s = Double(text), s > 0 else { throw ExampleError("--seconds: expected a positive number, got \"\(text)\"") }
                seconds = s
            case "--password":
                throw ExampleError("--password is refused: argv is visible to every user; use --password-file FILE")
            default: throw ExampleError("unknown argument \"\(flag)\"")
            }
        }
        guard server.hasPrefix("ws://") || server.hasPrefix("wss://") else {
            throw ExampleError("--server ws://host:port (or wss://) is required")
        }
        if login != nil && passwordFile == nil { throw ExampleError("--login needs --password-file") }
    }

    /// Reads the password file (first line).
    func password() throws(ExampleError) -> String? {
        guard let passwordFile else { return nil }
        guard let text = try? String(contentsOfFile: passwordFile, encoding: .utf8) else {
            throw ExampleError("cannot read the password file \(passwordFile)")
        }
        let line = text.split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
        guard !line.isEmpty else { throw ExampleError("the password file \(passwordFile) is empty") }
        return line
    }
}

/// A usage or file error, printed as is.
struct ExampleError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
