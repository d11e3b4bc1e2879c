// The `flowvm` command: run a graph (locally or on a cluster), inspect one,
// list the ops, check a checkpoint or a record file, serve one task of a cluster, start
// and stop a local cluster, or serve a log directory as a web board.
//
// On success the exit status is 0. On any error, one line goes to stderr,
// beginning with the error code ("InvalidArgument: node 'x' (MatMul): ..."),
// and the exit status is 1 (2 for a usage error).
#include <cstdio>
#include <string>
#include <vector>

#include "commands.h"

namespace {

const char kUsage[] =
    "usage:\n"
    "  flowvm run GRAPH.(pb|pbtxt) --fetch NAME[:PORT]... [--feed NAME[:PORT]=FILE.npy]...\n"
    "             [--target NODE]... [--init NODE]... [--repeat K] [--output-dir DIR]\n"
    "             [--threads N] [--cpu-devices N] [--soft-placement] [--timeout-ms MS]\n"
    "             [--trace FILE.json] [--target-server grpc://HOST:PORT] [-v]\n"
    "             [--token-file FILE] [--tls-ca CA.pem [--tls-cert CERT.pem --tls-key KEY.pem]]\n"
    "  flowvm inspect GRAPH.(pb|pbtxt) [--placement] [--cpu-devices N] [--soft-placement] [-v]\n"
    "  flowvm ops [OP...]\n"
    "  flowvm checkpoint PREFIX [-v]\n"
    "  flowvm records FILE [--check] [-v]\n"
    "  flowvm server [--cluster CLUSTER.json --job NAME --task I] [--cpu-devices N] [--threads N]\n"
    "                (no flags: the task in TF_CONFIG)\n"
    "                [--allow-dir DIR]... (graphs' files only there; default: the working directory)\n"
    "                [--tls-cert CERT.pem --tls-key KEY.pem [--tls-ca CA.pem]] [--token-file FILE]\n"
    "                [--insecure] (listen on a non-loopback address without TLS)\n"
    "                [--max-message-bytes N] [--max-graph-bytes N] [--max-graph-nodes N]\n"
    "                [--max-step-memory-bytes N]\n"
    "                (the token may also come from FLOWVM_CLUSTER_TOKEN, TLS files from FLOWVM_TLS_CA/_CERT/_KEY)\n"
    "  flowvm cluster up [--ps N] [--workers N] [--dir DIR] [--cpu-devices N] [--allow-dir DIR]...\n"
    "                    [--tls-cert CERT.pem --tls-key KEY.pem [--tls-ca CA.pem]] [--token-file FILE]\n"
    "                    [--restart [--max-restarts N] [--restart-backoff-ms MS]]\n"
    "  flowvm cluster down --dir DIR [credential flags as for up]\n"
    "  flowvm cluster restart --dir DIR --task JOB-I [credential flags as for up]\n"
    "  flowvm board --logdir DIR [--port P (default 6006; 0: a free one)] [--host H (default 127.0.0.1)]\n"
    "               [--graph GRAPH.(pb|pbtxt)]... [--trace TRACE.json]... [--reload-ms MS (default 1000)]\n"
    "  flowvm help\n";

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty() || args[0] == "help" || args[0] == "--help" || args[0] == "-h") {
    std::fputs(kUsage, args.empty() ? stderr : stdout);
    return args.empty() ? 2 : 0;
  }
  std::string command = args[0];
  args.erase(args.begin());
  flowvm::Status s;
  if (command == "run") {
    s = flowvm::cli::RunCommand(args);
  } else if (command == "inspect") {
    s = flowvm::cli::InspectCommand(args);
  } else if (command == "ops") {
    s = flowvm::cli::OpsCommand(args);
  } else if (command == "checkpoint") {
    s = flowvm::cli::CheckpointCommand(args);
  } else if (command == "server") {
    s = flowvm::cli::ServerCommand(args);
  } else if (command == "records") {
    s = flowvm::cli::RecordsCommand(args);
  } else if (command == "cluster") {
    s = flowvm::cli::ClusterCommand(args);
  } else if (command == "board") {
    s = flowvm::cli::BoardCommand(args);
  } else {
    std::fprintf(stderr, "InvalidArgument: unknown command '%s' (try 'flowvm help')\n", command.c_str());
    return 2;
  }
  if (!s.ok()) {
    std::string line = s.ToString();
    for (char& c : line)
      if (c == '\n') c = ' ';
    std::fprintf(stderr, "%s\n", line.c_str());
    return s.code() == flowvm::Code::kInvalidArgument && s.message().rfind("usage", 0) == 0 ? 2 : 1;
  }
  return 0;
}
