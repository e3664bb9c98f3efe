"""The writers' batches kept in ``tests/fidelity_batches`` (from batch 72): hand-written scripts
by writers who never read the rules, scored like the corpus but kept out of it. Their
false alarms and recall are reported by ``userbench validate-fidelity --corpus`` (see the
folder's README and docs/fidelity-validity.md), not asserted here."""
from __future__ import annotations

import functools
import importlib.util
import json
from pathlib import Path

import pytest

from userbench_env.fidelity.corpus import load_corpus, replay_case

HERE = Path(__file__).parent
BATCHES = sorted(path for path in (HERE / "fidelity_batches").iterdir() if path.name.startswith("b"))
#: Each batch's writers and the seed of each writer's pack (``tools/make_pack.py SEED 32``).
PACKS = {"b72": {"gptstyle20": 1291, "kumasi": 1292, "orcadian": 1293, "llamastyle": 1294},
         "b73": {"gptstyle21": 1295, "mistralstyle": 1296, "goan": 1297, "hurried": 1298},
         "b74": {"gptstyle22": 1299, "claudestyle": 1300, "queenslander": 1301, "cypriot": 1302},
         "b75": {"gptstyle23": 1303, "qwenstyle": 1304, "ozarks": 1305, "oxbridge": 1306},
         "b76": {"gptstyle24": 1307, "ministyle": 1308, "deepseekstyle": 1309, "sheffield": 1310},
         "b77": {"gptstyle25": 1311, "phistyle": 1312, "bayarea": 1313, "durban": 1314},
         "b78": {"gptstyle26": 1315, "gptstyle27": 1316, "geministyle": 1317, "sonnetstyle": 1318},
         "b79": {"nairobi": 1319, "corkpub": 1320, "chennai2": 1321, "vermont": 1322},
         "b80": {"gptstyle28": 1323, "gptstyle29": 1324, "llamastyle2": 1325, "gemmastyle": 1326},
         "b81": {"kingston": 1327, "glasgowstudent": 1328, "manilanurse": 1329, "texasrancher": 1330},
         "b82": {"gptstyle30": 1331, "gptstyle31": 1332, "mixtralstyle": 1333, "commandstyle": 1334},
         "b83": {"dhaka2": 1335, "auckland2": 1336, "montreal": 1337, "nola": 1338},
         "b84": {"gptstyle32": 1339, "accra": 1340, "cardiff": 1341, "hanoi": 1342},
         "b85": {"gptstyle33": 1343, "tallinn": 1344, "capetown2": 1345, "brisbane2": 1346},
         "b86": {"gptstyle34": 1347, "wellington": 1348, "bogota": 1349, "belfast2": 1350},
         "b87": {"gptstyle35": 1351, "kerala": 1352, "saopaulo": 1353, "denver2": 1354},
         "b88": {"gptstyle36": 1355, "cairo2": 1356, "perth2": 1357, "toronto3": 1358},
         "b89": {"gptstyle37": 1359, "lagos4": 1360, "dublin3": 1361, "manila3": 1362},
         "b90": {"gptstyle38": 1363, "quito": 1364, "marseille": 1365, "riga": 1366},
         "b91": {"gptstyle39": 1367, "osaka2": 1368, "adelaide2": 1369, "hobart": 1370},
         "b92": {"gptstyle40": 1371, "santiago": 1372, "hamburg2": 1373, "lahore": 1374},
         "b93": {"gptstyle41": 1375, "bristol2": 1376, "halifax": 1377, "nairobi4": 1378},
         "b94": {"gptstyle42": 1379, "cusco": 1380, "porto2": 1381, "ottawa2": 1382},
         "b95": {"gptstyle43": 1383, "seoul2": 1384, "belgrade": 1385, "darwin2": 1386},
         "b96": {"gptstyle44": 1387, "valparaiso": 1388, "tbilisi": 1389, "cebu2": 1390},
         "b97": {"gptstyle45": 1391, "leipzig": 1392, "fiji": 1393, "hyderabad2": 1394},
         "b98": {"gptstyle46": 1395, "lisbon3": 1396, "winnipeg": 1397, "kampala2": 1398},
         "b99": {"gptstyle47": 1399, "tromso": 1400, "bilbao": 1401, "perth3": 1402},
         "b100": {"gptstyle48": 1403, "medellin": 1404, "glasgow2": 1405, "mumbai3": 1406},
         "b101": {"gptstyle49": 1407, "oslo2": 1408, "havana": 1409, "krakow2": 1410},
         "b102": {"gptstyle50": 1411, "durban3": 1412, "reykjavik": 1413, "hanoi2": 1414},
         "b103": {"gptstyle51": 1415, "calgary": 1416, "tunis": 1417, "davao": 1418},
         "b104": {"gptstyle52": 1419, "montevideo": 1420, "accra2": 1421, "bergen2": 1422},
         "b105": {"gptstyle53": 1423, "cairo3": 1424, "nagoya": 1425, "quebec": 1426},
         "b106": {"gptstyle54": 1427, "kigali2": 1428, "seville2": 1429, "windhoek": 1430},
         "b107": {"gptstyle55": 1431, "sapporo2": 1432, "riga2": 1433, "tallinn2": 1434},
         "b108": {"gptstyle56": 1435, "cork2": 1436, "izmir": 1437, "busan2": 1438},
         "b109": {"gptstyle57": 1439, "tampere": 1440, "ibadan": 1441, "jaipur3": 1442},
         "b110": {"gptstyle58": 1443, "antofagasta": 1444, "lusaka2": 1445, "dunedin2": 1446},
         "b111": {"gptstyle59": 1447, "kochi2": 1448, "gdansk2": 1449, "puebla2": 1450},
         "b112": {"gptstyle60": 1451, "cuzco": 1452, "zanzibar": 1453, "aarhus2": 1454},
         "b113": {"gptstyle61": 1455, "ipoh": 1456, "mombasa2": 1457, "galway2": 1458},
         "b114": {"gptstyle62": 1459, "nadi": 1460, "rosario2": 1461, "hue2": 1462},
         "b115": {"gptstyle63": 1463, "bruges": 1464, "kazan": 1465, "ushuaia": 1466},
         "b116": {"gptstyle64": 1467, "arequipa": 1468, "tbilisi2": 1469, "darwin3": 1470},
         "b117": {"gptstyle65": 1471, "valdivia": 1472, "trieste": 1473, "lhasa": 1474},
         "b118": {"gptstyle66": 1475, "tucson2": 1476, "asmara": 1477, "sibiu": 1478},
         "b119": {"gptstyle67": 1479, "bilbao2": 1480, "tromso2": 1481, "accra3": 1482},
         "b120": {"gptstyle68": 1483, "ghent": 1484, "salta2": 1485, "hanoi3": 1486},
         "b121": {"gptstyle69": 1487, "iquitos": 1488, "mostar": 1489, "bukhara": 1490},
         "b122": {"gptstyle70": 1491, "lviv2": 1492, "cairns2": 1493, "kumamoto": 1494},
         "b123": {"gptstyle71": 1495, "harar": 1496, "fresno": 1497, "luang": 1498},
         "b124": {"gptstyle72": 1499, "sucre2": 1500, "tartu3": 1501, "nuuk2": 1502},
         "b125": {"gptstyle73": 1503, "ambato": 1504, "kotor": 1505, "kiruna2": 1506},
         "b126": {"gptstyle74": 1507, "tulear": 1508, "goias": 1509, "windsor3": 1510},
         "b127": {"gptstyle75": 1511, "chiclayo": 1512, "ohrid2": 1513, "kaunas": 1514},
         "b128": {"gptstyle76": 1515, "bergamo2": 1516, "haifa2": 1517, "mendoza3": 1518},
         "b129": {"gptstyle77": 1519, "trujillo2": 1520, "skopje": 1521, "bodo": 1522},
         "b130": {"gptstyle78": 1523, "kassel2": 1524, "nakuru": 1525, "ilorin2": 1526},
         "b131": {"gptstyle79": 1527, "jaffna": 1528, "lamu2": 1529, "oaxaca3": 1530},
         "b132": {"tbilisi3": 1531, "rovaniemi2": 1532, "gptstyle80": 1533, "mombasa3": 1534},
         "b133": {"gptstyle81": 1535, "arequipa3": 1536, "hobart2": 1537, "kandy2": 1538},
         "b134": {"sapporo3": 1539, "gptstyle82": 1540, "dakar3": 1541, "agadir": 1542},
         "b135": {"gptstyle83": 1543, "cuenca2": 1544, "hilo2": 1545, "izmir2": 1546},
         "b136": {"sligo": 1547, "kazan3": 1548, "gptstyle84": 1549, "puno2": 1550},
         "b137": {"gptstyle85": 1551, "ushuaia3": 1552, "galway3": 1553, "suva2": 1554},
         "b138": {"oruro2": 1555, "vaasa2": 1556, "gptstyle86": 1557, "tamale3": 1558},
         "b139": {"gptstyle87": 1559, "matera2": 1560, "tarija2": 1561, "hue3": 1562},
         "b140": {"kolkata3": 1563, "bergen3": 1564, "gptstyle88": 1565, "durango2": 1566},
         "b141": {"gptstyle89": 1567, "antigua3": 1568, "timbuktu2": 1569, "hakodate2": 1570},
         "b142": {"braga3": 1571, "gptstyle90": 1572, "tulsa2": 1573, "zaria2": 1574},
         "b143": {"gptstyle91": 1575, "cusco5": 1576, "pokhara3": 1577, "varna2": 1578},
         "b144": {"ibadan3": 1579, "gptstyle92": 1580, "nazca": 1581, "trondheim2": 1582},
         "b145": {"gptstyle93": 1583, "moshi2": 1584, "sitka2": 1585, "ghardaia": 1586},
         "b146": {"tromso4": 1587, "gptstyle94": 1588, "leeds4": 1589, "quetta2": 1590},
         "b147": {"gptstyle95": 1591, "merida3": 1592, "kisumu2": 1593, "tartu4": 1594},
         "b148": {"chengdu2": 1595, "gptstyle96": 1596, "oulu2": 1597, "potosi2": 1598},
         "b149": {"gptstyle97": 1599, "samarkand2": 1600, "juneau": 1601, "recife3": 1602},
         "b150": {"mandalay3": 1603, "gptstyle98": 1604, "aarhus3": 1605, "cebu3": 1606},
         "b151": {"gptstyle99": 1607, "iquique": 1608, "kigali3": 1609, "lhasa2": 1610},
         "b152": {"porto4": 1611, "gptstyle100": 1612, "yangon2": 1613, "hobart3": 1614},
         "b153": {"gptstyle101": 1615, "arica2": 1616, "dodoma2": 1617, "tromso5": 1618},
         "b154": {"sucre3": 1619, "gptstyle102": 1620, "bremen3": 1621, "hue4": 1622},
         "b155": {"narvik": 1623, "tartu": 1624, "gptstyle103": 1625, "gptstyle104": 1626},
         "b156": {"parma": 1627, "cuenca": 1628, "gptstyle105": 1629, "fes": 1630},
         "b157": {"gptstyle106": 1631, "salvador2": 1632, "jaipur2": 1633, "hanoi4": 1634},
         "b158": {"gptstyle107": 1635, "tromso6": 1636, "bordeaux": 1637, "mbeya": 1638},
         "b159": {"gptstyle108": 1639, "rosario3": 1640, "tabriz": 1641, "gptstyle109": 1642},
         "b160": {"ushuaia2": 1643, "vigo": 1644, "gptstyle110": 1645, "gptstyle111": 1646},
         "b161": {"natal3": 1647, "arusha3": 1648, "lucerne": 1649, "oruro": 1650},
         "b162": {"gptstyle112": 1651, "gptstyle113": 1652, "cusco6": 1653, "tromso7": 1654},
         "b163": {"baku2": 1655, "quetta": 1656, "nantes": 1657, "gptstyle114": 1658},
         "b164": {"gptstyle115": 1659, "gptstyle116": 1660, "hobart4": 1661, "merida2": 1662},
         "b165": {"kyoto3": 1663, "assisi": 1664, "gptstyle117": 1665, "lima5": 1666},
         "b166": {"gptstyle118": 1667, "gptstyle119": 1668, "osaka4": 1669, "puno": 1670},
         "b167": {"tamale": 1671, "limerick3": 1672, "gptstyle120": 1673, "rhodes2": 1674},
         "b168": {"gptstyle121": 1675, "gptstyle122": 1676, "cork3": 1677, "santiago4": 1678},
         "b169": {"fez2": 1679, "gptstyle123": 1680, "galway4": 1681, "jeddah": 1682},
         "b170": {"gptstyle124": 1683, "nicosia": 1684, "gptstyle125": 1685, "valletta": 1686},
         "b171": {"gptstyle126": 1687, "kathmandu": 1688, "gptstyle127": 1689, "inverness": 1690},
         "b172": {"gptstyle128": 1691, "cartagena": 1692, "gptstyle129": 1693, "fremantle": 1694},
         "b173": {"gptstyle130": 1695, "tangier": 1696, "gptstyle131": 1697, "whitby": 1698},
         "b174": {"gptstyle132": 1699, "mopti": 1700, "gptstyle133": 1701, "hokitika": 1702},
         "b175": {"gptstyle134": 1703, "sarajevo": 1704, "gptstyle135": 1705, "yorkton": 1706},
         "b176": {"gptstyle136": 1707, "arequipa4": 1708, "gptstyle137": 1709, "lofoten": 1710},
         "b177": {"gptstyle138": 1711, "tashkent": 1712, "gptstyle139": 1713, "cornwall": 1714},
         "b178": {"gptstyle140": 1715, "gaborone": 1716, "gptstyle141": 1717, "ljubljana": 1718},
         "b179": {"gptstyle142": 1719, "cuiaba": 1720, "gptstyle143": 1721, "galle": 1722},
         "b180": {"gptstyle144": 1723, "tamatave": 1724, "gptstyle145": 1725, "dundee": 1726},
         "b181": {"gptstyle146": 1727, "oaxaca4": 1728, "gptstyle147": 1729, "bulawayo": 1730},
         "b182": {"gptstyle148": 1731, "trabzon": 1732, "gptstyle149": 1733, "launceston": 1734},
         "b183": {"gptstyle150": 1735, "iloilo": 1736, "gptstyle151": 1737, "hebrides": 1738},
         "b184": {"gptstyle152": 1739, "asmara2": 1740, "gptstyle153": 1741, "saskatoon": 1742},
         "b185": {"gptstyle154": 1743, "kisangani": 1744, "gptstyle155": 1745, "chiangmai": 1746},
         "b186": {"gptstyle156": 1747, "timisoara": 1748, "gptstyle157": 1749, "nuuk3": 1750},
         "b187": {"gptstyle158": 1751, "mandalay4": 1752, "gptstyle159": 1753, "aberdeen": 1754},
         "b188": {"gptstyle160": 1755, "arusha4": 1756, "gptstyle161": 1757, "cochabamba": 1758},
         "b189": {"gptstyle162": 1759, "mombasa4": 1760, "gptstyle163": 1761, "kirkwall": 1762},
         "b190": {"gptstyle164": 1763, "tbilisi4": 1764, "gptstyle165": 1765, "jaffna2": 1766},
         "b191": {"gptstyle166": 1767, "zanzibar3": 1768, "gptstyle167": 1769, "shetland": 1770},
         "b192": {"gptstyle168": 1771, "ushuaia4": 1772, "gptstyle169": 1773, "kandy3": 1774},
         "b193": {"gptstyle170": 1775, "pemba": 1776, "gptstyle171": 1777, "lubeck": 1778},
         "b194": {"gptstyle172": 1779, "sfax": 1780, "gptstyle173": 1781, "galway5": 1782},
         "b195": {"gptstyle174": 1783, "tarija": 1784, "gptstyle175": 1785, "hokkaido2": 1786},
         "b196": {"gptstyle176": 1787, "ayacucho": 1788, "gptstyle177": 1789, "bihac": 1790},
         "b197": {"gptstyle178": 1791, "kumasi3": 1792, "gptstyle179": 1793, "svolvaer": 1794},
         "b198": {"gptstyle180": 1795, "thimphu2": 1796, "gptstyle181": 1797, "iquitos2": 1798},
         "b199": {"gptstyle182": 1799, "jinja2": 1800, "gptstyle183": 1801, "toliara": 1802},
         "b200": {"gptstyle184": 1803, "ilulissat": 1804, "gptstyle185": 1805, "kochi3": 1806},
         "b201": {"gptstyle186": 1807, "segou": 1808, "gptstyle187": 1809, "uzhhorod": 1810},
         "b202": {"gptstyle188": 1811, "cayenne2": 1812, "gptstyle189": 1813, "ambon2": 1814},
         "b203": {"gptstyle190": 1815, "lamu3": 1816, "gptstyle191": 1817, "oulu": 1818},
         "b204": {"gptstyle192": 1819, "naivasha": 1820, "gptstyle193": 1821, "hilo3": 1822},
         "b205": {"gptstyle194": 1823, "bergamo": 1824, "gptstyle195": 1825, "ouarzazate": 1826},
         "b206": {"gptstyle196": 1827, "ballarat": 1828, "gptstyle197": 1829, "chiloe": 1830},
         "b207": {"gptstyle198": 1831, "lerwick": 1832, "gptstyle199": 1833, "tamale2": 1834},
         "b208": {"gptstyle200": 1835, "mendoza4": 1836, "gptstyle201": 1837, "kandy4": 1838},
         "b209": {"gptstyle202": 1839, "tobago": 1840, "gptstyle203": 1841, "salalah": 1842},
         "b210": {"gptstyle204": 1843, "lofoten2": 1844, "gptstyle205": 1845, "kampala5": 1846},
         "b211": {"gptstyle206": 1847, "rotorua3": 1848, "gptstyle207": 1849, "ghent3": 1850},
         "b212": {"gptstyle208": 1851, "aswan4": 1852, "tromso8": 1853, "yerevan5": 1854},
         "b213": {"gptstyle209": 1855, "essaouira2": 1856, "gptstyle210": 1857, "hakodate3": 1858},
         "b214": {"gptstyle211": 1859, "leon3": 1860, "gptstyle212": 1861, "sitka3": 1862},
         "b215": {"gptstyle213": 1863, "kisii2": 1864, "gptstyle214": 1865, "trabzon2": 1866},
         "b216": {"gptstyle215": 1867, "nuuk4": 1868, "gptstyle216": 1869, "oamaru": 1870},
         "b217": {"gptstyle217": 1871, "kaunas3": 1872, "gptstyle218": 1873, "arequipa5": 1874},
         "b218": {"gptstyle219": 1875, "mahajanga": 1876, "gptstyle220": 1877, "lamu4": 1878},
         "b219": {"gptstyle221": 1879, "tartu5": 1880, "gptstyle222": 1881, "hilo4": 1882},
         "b220": {"gptstyle223": 1883, "jaffna3": 1884, "gptstyle224": 1885, "oaxaca5": 1886},
         "b221": {"gptstyle225": 1887, "kotor2": 1888, "gptstyle226": 1889, "arusha5": 1890},
         "b222": {"gptstyle227": 1891, "bergen4": 1892, "gptstyle228": 1893, "cusco7": 1894},
         "b223": {"gptstyle229": 1895, "sfax3": 1896, "gptstyle230": 1897, "ohrid3": 1898},
         "b224": {"gptstyle231": 1899, "sucre5": 1900, "gptstyle232": 1901, "lamu5": 1902},
         "b225": {"gptstyle233": 1903, "tulear2": 1904, "gptstyle234": 1905, "mostar2": 1906},
         "b226": {"gptstyle235": 1907, "salta3": 1908, "gptstyle236": 1909, "nuuk5": 1910},
         "b227": {"gptstyle237": 1911, "tozeur": 1912, "gptstyle238": 1913, "mopti2": 1914},
         "b228": {"gptstyle239": 1915, "harar2": 1916, "gptstyle240": 1917, "oruro3": 1918},
         "b229": {"gptstyle241": 1919, "sousse": 1920, "gptstyle242": 1921, "bamako": 1922},
         "b230": {"gptstyle243": 1923, "galle2": 1924, "gptstyle244": 1925, "luxor": 1926},
         "b231": {"gptstyle245": 1927, "axum": 1928, "gptstyle246": 1929, "kairouan": 1930},
         "b232": {"gptstyle247": 1931, "agadez": 1932, "gptstyle248": 1933, "chefchaouen": 1934},
         "b233": {"gptstyle249": 1935, "siwa": 1936, "gptstyle250": 1937, "zinder": 1938},
         "b234": {"gptstyle251": 1939, "ghadames": 1940, "gptstyle252": 1941, "lalibela": 1942},
         "b235": {"gptstyle253": 1943, "djenne": 1944, "gptstyle254": 1945, "gafsa": 1946},
         "b236": {"gptstyle255": 1947, "tinghir": 1948, "gptstyle256": 1949, "kassala": 1950},
         "b237": {"gptstyle257": 1951, "massawa": 1952, "gptstyle258": 1953, "berbera": 1954},
         "b238": {"gptstyle259": 1955, "moroni": 1956, "gptstyle260": 1957, "hargeisa": 1958},
         "b239": {"gptstyle261": 1959, "gondar": 1960, "gptstyle262": 1961, "quelimane": 1962},
         "b240": {"gptstyle263": 1963, "mbarara": 1964, "gptstyle264": 1965, "tete": 1966},
         "b241": {"gptstyle265": 1967, "ziguinchor": 1968, "gptstyle266": 1969, "kaolack": 1970},
         "b242": {"gptstyle267": 1971, "podor": 1972, "gptstyle268": 1973, "matam": 1974},
         "b243": {"gptstyle269": 1975, "banfora": 1976, "gptstyle270": 1977, "kayes": 1978},
         "b244": {"gptstyle271": 1979, "sikasso": 1980, "gptstyle272": 1981, "kidal": 1982},
         "b245": {"gptstyle273": 1983, "dori": 1984, "gptstyle274": 1985, "fada": 1986},
         "b246": {"gptstyle275": 1987, "tenkodogo": 1988, "gptstyle276": 1989, "gaoua": 1990},
         "b247": {"gptstyle277": 1991, "atar": 1992, "gptstyle278": 1993, "nema": 1994},
         "b248": {"gptstyle279": 1995, "rosso": 1996, "gptstyle280": 1997, "kaedi": 1998},
         "b249": {"gptstyle281": 1999, "kigoma": 2000, "gptstyle282": 2001, "mtwara": 2002},
         "b250": {"gptstyle283": 2003, "songea": 2004, "gptstyle284": 2005, "tabora": 2006},
         "b251": {"gptstyle285": 2007, "iringa": 2008, "gptstyle286": 2009, "njombe": 2010},
         "b252": {"gptstyle287": 2011, "babati": 2012, "gptstyle288": 2013, "kahama": 2014},
         "b253": {"gptstyle289": 2015, "lamu": 2016, "gptstyle290": 2017, "malindi": 2018},
         "b254": {"gptstyle291": 2019, "kilifi": 2020, "gptstyle292": 2021, "voi": 2022},
         "b255": {"gptstyle293": 2023, "garissa": 2024, "gptstyle294": 2025, "wajir": 2026},
         "b256": {"gptstyle295": 2027, "marsabit": 2028, "gptstyle296": 2029, "lodwar": 2030},
         "b257": {"gptstyle297": 2031, "kitale": 2032, "gptstyle298": 2033, "eldoret": 2034},
         "b258": {"gptstyle299": 2035, "nanyuki": 2036, "gptstyle300": 2037, "meru": 2038},
         "b259": {"gptstyle301": 2039, "embu": 2040, "gptstyle302": 2041, "kisii": 2042},
         "b260": {"gptstyle303": 2043, "kericho": 2044, "gptstyle304": 2045, "bomet": 2046},
         "b261": {"gptstyle305": 2047, "narok": 2048, "gptstyle306": 2049, "kajiado": 2050},
         "b262": {"gptstyle307": 2051, "machakos": 2052, "gptstyle308": 2053, "kitui": 2054},
         "b263": {"gptstyle309": 2055, "nyeri": 2056, "gptstyle310": 2057, "thika": 2058},
         "b264": {"gptstyle311": 2059, "kakamega": 2060, "gptstyle312": 2061, "bungoma": 2062},
         "b265": {"gptstyle313": 2063, "busia": 2064, "gptstyle314": 2065, "homabay": 2066},
         "b266": {"gptstyle315": 2067, "migori": 2068, "gptstyle316": 2069, "kisumu": 2070},
         "b267": {"gptstyle317": 2071, "kilgoris": 2072, "gptstyle318": 2073, "isiolo": 2074},
         "b268": {"gptstyle319": 2075, "nyahururu": 2076, "gptstyle320": 2077, "wote": 2078},
         "b269": {"gptstyle321": 2079, "jinja": 2080, "gptstyle322": 2081, "mbale": 2082},
         "b270": {"gptstyle323": 2083, "gulu": 2084, "gptstyle324": 2085, "lira": 2086},
         "b271": {"gptstyle325": 2087, "soroti": 2088, "gptstyle326": 2089, "arua": 2090},
         "b272": {"gptstyle327": 2091, "masaka": 2092, "gptstyle328": 2093, "kabale": 2094},
         "b273": {"gptstyle329": 2095, "hoima": 2096, "gptstyle330": 2097, "tororo": 2098},
         "b274": {"gptstyle331": 2099, "entebbe": 2100, "gptstyle332": 2101, "kasese": 2102},
         "b275": {"gptstyle333": 2103, "mityana": 2104, "gptstyle334": 2105, "mubende": 2106},
         "b276": {"gptstyle335": 2107, "kitgum": 2108, "gptstyle336": 2109, "kotido": 2110},
         "b277": {"gptstyle337": 2111, "pader": 2112, "gptstyle338": 2113, "nebbi": 2114},
         "b278": {"gptstyle339": 2115, "koboko": 2116, "gptstyle340": 2117, "wakiso": 2118},
         "b279": {"gptstyle341": 2119, "mukono": 2120, "gptstyle342": 2121, "luwero": 2122},
         "b280": {"gptstyle343": 2123, "kyenjojo": 2124, "gptstyle344": 2125, "kiboga": 2126},
         "b281": {"gptstyle345": 2127, "ibanda": 2128, "gptstyle346": 2129, "bushenyi": 2130},
         "b282": {"gptstyle347": 2131, "rukungiri": 2132, "gptstyle348": 2133, "moroto": 2134},
         "b283": {"gptstyle349": 2135, "iganga": 2136, "gptstyle350": 2137, "kamuli": 2138},
         "b284": {"gptstyle351": 2139, "pallisa": 2140, "gptstyle352": 2141, "kumi": 2142},
         "b285": {"gptstyle353": 2143, "mwanza": 2144, "gptstyle354": 2145, "dodoma": 2146},
         "b286": {"gptstyle355": 2147, "tanga": 2148, "gptstyle356": 2149, "morogoro": 2150},
         "b287": {"gptstyle357": 2151, "shinyanga": 2152, "gptstyle358": 2153, "musoma": 2154},
         "b288": {"gptstyle359": 2155, "bukoba": 2156, "gptstyle360": 2157, "moshi": 2158},
         "b289": {"gptstyle361": 2159, "lindi": 2160, "gptstyle362": 2161, "singida": 2162},
         "b290": {"gptstyle363": 2163, "sumbawanga": 2164, "gptstyle364": 2165, "geita": 2166},
         "b291": {"gptstyle365": 2167, "tarime": 2168, "gptstyle366": 2169, "korogwe": 2170},
         "b292": {"gptstyle367": 2171, "kilosa": 2172, "gptstyle368": 2173, "ifakara": 2174},
         "b293": {"gptstyle369": 2175, "lilongwe": 2176, "gptstyle370": 2177, "blantyre": 2178},
         "b294": {"gptstyle371": 2179, "zomba": 2180, "gptstyle372": 2181, "mzuzu": 2182},
         "b295": {"gptstyle373": 2183, "karonga": 2184, "gptstyle374": 2185, "kasungu": 2186},
         "b296": {"gptstyle375": 2187, "mangochi": 2188, "gptstyle376": 2189, "salima": 2190},
         "b297": {"gptstyle377": 2191, "balaka": 2192, "gptstyle378": 2193, "dedza": 2194},
         "b298": {"gptstyle379": 2195, "nkhotakota": 2196, "gptstyle380": 2197, "chitipa": 2198},
         "b299": {"gptstyle381": 2199, "rumphi": 2200, "gptstyle382": 2201, "mchinji": 2202},
         "b300": {"gptstyle383": 2203, "ntcheu": 2204, "gptstyle384": 2205, "liwonde": 2206},
         "b301": {"gptstyle385": 2207, "nsanje": 2208, "gptstyle386": 2209, "chikwawa": 2210},
         "b302": {"gptstyle387": 2211, "thyolo": 2212, "gptstyle388": 2213, "mulanje": 2214},
         "b303": {"gptstyle389": 2215, "phalombe": 2216, "gptstyle390": 2217, "machinga": 2218},
         "b304": {"gptstyle391": 2219, "neno": 2220, "gptstyle392": 2221, "dowa": 2222},
         "b305": {"gptstyle393": 2223, "nkhata": 2224, "gptstyle394": 2225, "chiradzulu": 2226},
         "b306": {"gptstyle395": 2227, "likoma": 2228, "gptstyle396": 2229, "mponela": 2230},
         "b307": {"gptstyle397": 2231, "ndola": 2232, "gptstyle398": 2233, "kitwe": 2234},
         "b308": {"gptstyle399": 2235, "kabwe": 2236, "gptstyle400": 2237, "chingola": 2238},
         "b309": {"gptstyle401": 2239, "kasama": 2240, "gptstyle402": 2241, "livingstone": 2242},
         "b310": {"gptstyle403": 2243, "chipata": 2244, "gptstyle404": 2245, "solwezi": 2246},
         "b311": {"gptstyle405": 2247, "mongu": 2248, "gptstyle406": 2249, "mufulira": 2250},
         "b312": {"gptstyle407": 2251, "kabompo": 2252, "gptstyle408": 2253, "mansa": 2254},
         "b313": {"gptstyle409": 2255, "luanshya": 2256, "gptstyle410": 2257, "mazabuka": 2258},
         "b314": {"gptstyle411": 2259, "petauke": 2260, "gptstyle412": 2261, "mpika": 2262},
         "b315": {"gptstyle413": 2263, "monze": 2264, "gptstyle414": 2265, "choma": 2266},
         "b316": {"gptstyle415": 2267, "mufumbwe": 2268, "gptstyle416": 2269, "kalomo": 2270},
         "b317": {"gptstyle417": 2271, "sesheke": 2272, "gptstyle418": 2273, "francistown": 2274},
         "b318": {"gptstyle419": 2275, "maun": 2276, "gptstyle420": 2277, "serowe": 2278},
         "b319": {"gptstyle421": 2279, "kanye": 2280, "gptstyle422": 2281, "molepolole": 2282},
         "b320": {"gptstyle423": 2283, "palapye": 2284, "gptstyle424": 2285, "mahalapye": 2286},
         "b321": {"gptstyle425": 2287, "tsabong": 2288, "gptstyle426": 2289, "lobatse": 2290},
         "b322": {"gptstyle427": 2291, "kasane": 2292, "gptstyle428": 2293, "ghanzi": 2294},
         "b323": {"gptstyle429": 2295, "selibe": 2296, "gptstyle430": 2297, "jwaneng": 2298},
         "b324": {"gptstyle431": 2299, "letlhakane": 2300, "gptstyle432": 2301, "shakawe": 2302},
         "b325": {"gptstyle433": 2303, "ondangwa": 2304, "gptstyle434": 2305, "rundu": 2306},
         "b326": {"gptstyle435": 2307, "oshakati": 2308, "gptstyle436": 2309, "swakopmund": 2310},
         "b327": {"gptstyle437": 2311, "keetmanshoop": 2312, "gptstyle438": 2313, "otjiwarongo": 2314},
         "b328": {"gptstyle439": 2315, "katima": 2316, "gptstyle440": 2317, "gobabis": 2318},
         "b329": {"gptstyle441": 2319, "tsumeb": 2320, "gptstyle442": 2321, "luderitz": 2322},
         "b330": {"gptstyle443": 2323, "mariental": 2324, "gptstyle444": 2325, "walvis": 2326},
         "b331": {"gptstyle445": 2327, "opuwo": 2328, "gptstyle446": 2329, "outapi": 2330},
         "b332": {"gptstyle447": 2331, "okahandja": 2332, "gptstyle448": 2333, "grootfontein": 2334}}


def test_every_batch_is_listed_with_its_writers_and_loads():
    assert [path.name for path in BATCHES] == sorted(PACKS)
    corpus_writers = {case.writer for case in load_corpus(HERE / "fidelity_corpus")}
    ids: set[str] = set()
    for batch in BATCHES:
        cases = load_corpus(batch)
        assert {case.writer for case in cases} == set(PACKS[batch.name])
        assert not {case.writer for case in cases} & corpus_writers  # writers the rules were never tuned on
        assert not ids & {case.id for case in cases}
        ids |= {case.id for case in cases}


@pytest.mark.parametrize("batch", BATCHES, ids=lambda path: path.name)
def test_every_script_of_a_batch_replays(batch, tau2_data):
    errors = {case.id: result.error for case in load_corpus(batch) if (result := replay_case(case)).error}
    assert not errors, errors


@functools.cache
def _make_pack():
    spec = importlib.util.spec_from_file_location("make_pack", HERE / "fidelity_batches" / "tools" / "make_pack.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("batch", BATCHES, ids=lambda path: path.name)
def test_each_writers_clean_scripts_follow_its_pack_in_order(batch, tau2_data):
    make_pack = _make_pack()
    for writer, seed in PACKS[batch.name].items():
        clean = [case for case in load_corpus(batch / f"writer_{writer}.jsonl") if case.clean]
        pack = [(domain, task.id) for domain, task in make_pack.sample_tasks(seed, 32)]
        assert [(case.domain, case.task_id) for case in clean] == pack, writer


def test_the_ratings_name_turns_of_batch_and_corpus_scripts():
    cases = {case.id: case for folder in [*BATCHES, HERE / "fidelity_corpus"] for case in load_corpus(folder)}
    for path in (HERE / "fidelity_batches" / "ratings").glob("*.jsonl"):
        for line in path.read_text(encoding="utf-8").splitlines():
            rating = json.loads(line)
            case = cases[rating["id"]]
            assert (HERE.parent / rating["file"]).is_file() and rating["turn"] < len(case.turns), rating
            raters = [key for key in rating if key[0] == "Z"]
            assert len(raters) == 2 and all(rating[r]["violation"] in ("yes", "no", "unsure") for r in raters), rating
