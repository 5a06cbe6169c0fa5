"""A minimal Scrapy spider for the static bench site: follows every link on the start URL's
host, obeys robots.txt, keeps nothing but the count (Scrapy's own stats say how many pages).

scrapy runspider spider.py -a start=http://127.0.0.1:PORT/ -s ...
"""
from urllib.parse import urlparse

import scrapy
from scrapy.linkextractors import LinkExtractor


class SiteSpider(scrapy.Spider):
    name = "static-site"
    custom_settings = {
        "ROBOTSTXT_OBEY": True,
        "LOG_LEVEL": "INFO",
        "TELNETCONSOLE_ENABLED": False,
    }

    def __init__(self, start: str, **kwargs):
        super().__init__(**kwargs)
        self.start_urls = [start]
        self.origin = urlparse(start).netloc
        self.links = LinkExtractor()

    def parse(self, response):
        for link in self.links.extract_links(response):
            if urlparse(link.url).netloc == self.origin:
                yield response.follow(link.url, callback=self.parse)
