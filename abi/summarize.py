"""Prints the problems of an abi-compliance-checker XML report, one per line.

usage: summarize.py REPORT.xml"""
import sys
import xml.etree.ElementTree as ET

root = ET.parse(sys.argv[1]).getroot()
for report in root.iter("report"):
    kind = report.get("kind")
    for removed in report.iter("removed_symbols"):
        for name in removed.iter("name"):
            print(f"  [{kind}] High: removed symbol {name.text}")
    for group in ("problems_with_types", "problems_with_symbols", "problems_with_constants"):
        for section in report.findall(group):
            severity = section.get("severity")
            if severity is None or severity in ("Low", "Safe"):
                continue
            for owner in section.iter():
                if owner.tag not in ("type", "symbol", "constant"):
                    continue
                for problem in owner.findall("problem"):
                    change = problem.find("change")
                    text = change.text if change is not None and change.text else ""
                    if change is not None:
                        for key, value in change.attrib.items():
                            text = text.replace(f"@{key}", value)
                    print(f"  [{kind}] {severity}: {owner.get('name')}: {problem.get('id')}: "
                          f"{text.strip()}")
