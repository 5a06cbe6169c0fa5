"""A URLFrontier client on Python's gRPC stack (grpcio, as Scrapy's frontier clients use),
driven by tests/python.rs against freshet's service: stubs generated from the schema by
grpc_tools, then a crawler's round trip. Prints one JSON object of what it saw.

Usage: client.py ADDRESS STUBS_DIR
"""

import json
import sys

sys.path.insert(0, sys.argv[2])

import grpc  # noqa: E402
import urlfrontier_pb2 as pb  # noqa: E402
import urlfrontier_pb2_grpc as rpc  # noqa: E402


def discovered(url, key="", metadata=None):
    info = pb.URLInfo(url=url, key=key, crawlID="py")
    for name, values in (metadata or {}).items():
        info.metadata[name].values.extend(values)
    return pb.URLItem(discovered=pb.DiscoveredURLItem(info=info), ID=url)


def known(info, date):
    return pb.URLItem(known=pb.KnownURLItem(info=info, refetchable_from_date=date), ID=info.url)


def main():
    channel = grpc.insecure_channel(sys.argv[1])
    stub = rpc.URLFrontierStub(channel)
    seen = {}

    items = [
        discovered("http://a.test/1", metadata={"depth": ["0"], "source": ["seed", "sitemap"]}),
        discovered("http://a.test/2"),
        discovered("http://b.test/1", key="queue-b"),
        discovered("http://a.test/ bad"),
    ]
    acks = list(stub.PutURLs(iter(items)))
    seen["acks"] = [[ack.ID, pb.AckMessage.Status.Name(ack.status)] for ack in acks]

    served = list(stub.GetURLs(pb.GetParams(max_urls_per_queue=1, crawlID="py")))
    seen["served"] = sorted([info.url, info.key, info.crawlID] for info in served)
    first = next(info for info in served if info.url == "http://a.test/1")
    seen["metadata"] = {name: list(values.values) for name, values in first.metadata.items()}

    reports = [known(info, 0) for info in served]
    seen["report_acks"] = [pb.AckMessage.Status.Name(ack.status) for ack in stub.PutURLs(iter(reports))]

    stats = stub.GetStats(pb.QueueWithinCrawlParams(crawlID="py"))
    seen["stats"] = {
        "size": stats.size,
        "inProcess": stats.inProcess,
        "queues": stats.numberOfQueues,
        "completed": stats.counts["completed"],
    }
    status = stub.GetURLStatus(pb.URLStatusRequest(url="http://a.test/2", crawlID="py"))
    seen["status"] = status.WhichOneof("item")
    try:
        stub.GetURLStatus(pb.URLStatusRequest(url="http://z.test/", crawlID="py"))
        seen["missing"] = "found"
    except grpc.RpcError as error:
        seen["missing"] = error.code().name
    seen["crawls"] = list(stub.ListCrawls(pb.Local()).values)
    remaining = list(stub.GetURLs(pb.GetParams(crawlID="py")))
    seen["remaining"] = sorted(info.url for info in remaining)
    print(json.dumps(seen, sort_keys=True))


if __name__ == "__main__":
    main()
